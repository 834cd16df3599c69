"""Values passed through to DuckDB's settings (``--memory-limit``, ``memory_limit``,
``temp_directory``): whatever DuckDB refuses is one line naming the option, exit 2 on the
command line, a ValueError through the API; never DuckDB's own exception and traceback."""

import pytest
from cli_helpers import run
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from clustermetrics.io.duckdb_engine import from_duckdb

VALUES = st.one_of(
    st.text(max_size=12),
    st.builds("{}{}".format, st.sampled_from(["", "-", "1", "1.5", "0", "1e999", "9" * 30]),
              st.sampled_from(["", "GB", "MiB", "kb", "%", " GB", "XB"])))


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    path = tmp_path_factory.mktemp("settings") / "t.csv"
    path.write_text("y,p\n0,0\n0,1\n1,1\n")
    return path


@given(VALUES)
@settings(max_examples=60, deadline=None,  # run() reads capsys empty after each call
          suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_memory_limit_on_the_command_line(table, capsys, value):
    code, out, err = run(capsys, "score", table, "--true-col", "y", "--pred-col", "p",
                         "--engine", "duckdb", "--metrics", "ari", f"--memory-limit={value}")
    if code == 0:
        assert "ari" in out
        return
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("clustermetrics: error: "), err
    assert "memory_limit" not in err and "Traceback" not in err
    if "Out of Memory" not in err:  # a limit too small to read the file: the file's error
        assert "--memory-limit" in err, err


@given(VALUES, st.sampled_from(["memory_limit", "temp_directory"]))
@settings(max_examples=40, deadline=None)
def test_settings_through_the_api(table, value, setting):
    try:
        from_duckdb(str(table), "y", "p", **{setting: value})
    except ValueError as exc:
        if "Out of Memory" not in str(exc):
            assert str(exc).startswith(setting), exc


@pytest.mark.parametrize("value", [4, 4.0, b"4GB"])
def test_a_setting_that_is_not_text(table, value):
    with pytest.raises(ValueError, match="^memory_limit must be a non-empty string"):
        from_duckdb(str(table), "y", "p", memory_limit=value)
