"""A pytest plugin that turns every skip into a failure (`-p no_skips`, with Tests/ on
PYTHONPATH; scripts/test.sh loads it for every suite).

scripts/setup.sh --test installs everything the suites need (the VMs' tools, the node
binary's libraries, the S3 service, the browser): a suite that skips on such a machine
proves nothing while the run stays green, so here a skip says why and fails. Expected
failures (xfail) are left alone."""
import pytest


def _why(report):
    longrepr = report.longrepr
    if isinstance(longrepr, tuple) and len(longrepr) == 3:   # (file, line, reason)
        return f"{longrepr[0]}:{longrepr[1]}: {longrepr[2]}"
    return str(longrepr)


def _fail(report):
    report.outcome = "failed"
    report.longrepr = f"skipped, and the test command fails on any skip (Tests/no_skips.py): {_why(report)}"


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if report.skipped and not hasattr(report, "wasxfail"):
        _fail(report)


@pytest.hookimpl(hookwrapper=True)
def pytest_make_collect_report(collector):
    outcome = yield
    report = outcome.get_result()
    if report.skipped:   # a module-level skip (pytest.importorskip, allow_module_level)
        _fail(report)
