"""The dashboard's live video: the recorder's own fMP4 through Media Source Extensions in
Chromium, and the snapshot where the browser has no MSE."""

from browser import DESKTOP, save_full_page_screenshot, severe_console_entries
from dashboard_page import live_video_state, snapshot_state, wait_for, wait_until_live
import pytest

# pytest-xdist (scripts/test.sh, --dist loadgroup): the module's node fixtures are built once on one worker.
pytestmark = pytest.mark.xdist_group("web-live-view")


def test_live_video_plays_through_mse(node, driver):
    driver.get(node.url + "/")
    wait_until_live(driver)
    wait_for(driver, lambda: live_video_state(driver)["shown"], message="the live video did not start")
    first = live_video_state(driver)
    assert first["mode"] == "Live"
    wait_for(driver, lambda: live_video_state(driver)["currentTime"] > first["currentTime"] + 1,
             message="currentTime does not advance")
    wait_for(driver, lambda: live_video_state(driver)["pixels"] != first["pixels"],
             message="the live picture does not change")
    later = live_video_state(driver)
    assert later["captureMs"] > first["captureMs"], "the frames shown are not newer"
    # The page says how far behind live it is; a broken stream would not have a number here.
    assert later["behindMs"] is not None and "behind live" in later["behindText"]
    status = node.api("/api/status")[0]["live"]["viewers"]["mse"]
    assert status["viewers"] >= 1 and status["bytesSent"] > 0
    assert severe_console_entries(driver) == []
    save_full_page_screenshot(driver, "dashboard-live-video", DESKTOP[0])


def test_without_mse_the_snapshot_is_shown_and_changes(node, driver):
    # A browser without Media Source Extensions or HLS (delete them before the page's scripts run).
    driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": """
        delete window.MediaSource; delete window.ManagedMediaSource;
        HTMLMediaElement.prototype.canPlayType = () => '';
    """})
    driver.get(node.url + "/")
    wait_until_live(driver)
    assert not live_video_state(driver)["shown"]
    assert "Snapshot" in live_video_state(driver)["mode"]
    first_capture, first_pixels = snapshot_state(driver)
    wait_for(driver, lambda: snapshot_state(driver)[0] > first_capture, timeout=5, message="the snapshot was not refreshed")
    wait_for(driver, lambda: snapshot_state(driver)[1] != first_pixels, timeout=5, message="the snapshot shows the same picture")
