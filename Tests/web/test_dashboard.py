"""The dashboard in headless Chromium against a real node recording the test pattern."""

import re
import urllib.parse
import time

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

from browser import DESKTOP, PHONE, emulate_viewport, save_full_page_screenshot, severe_console_entries
from dashboard_page import (
    apply_config, chunk_files, count_chunk_list_requests, js, newest_chunk_block, set_field, show_span,
    text_of, video_state, wait_for, wait_until_live,
)
from node_process import CHUNK_MS

# pytest-xdist (scripts/test.sh, --dist loadgroup): the module's node fixtures are built once on one worker.
pytestmark = pytest.mark.xdist_group("web-dashboard")


@pytest.fixture
def page(node, driver):
    driver.get(node.url + "/")
    wait_until_live(driver)
    return driver


def test_page_loads_without_console_errors(node, driver):
    driver.get(node.url + "/")
    wait_until_live(driver)
    time.sleep(3)
    assert severe_console_entries(driver) == []
    save_full_page_screenshot(driver, "dashboard-desktop", DESKTOP[0])


def test_phone_layout_fits_the_screen(node, driver):
    emulate_viewport(driver, *PHONE, mobile=True)
    driver.get(node.url + "/")
    wait_until_live(driver)
    assert js(driver, "return document.documentElement.scrollWidth") <= PHONE[0]
    assert severe_console_entries(driver) == []
    save_full_page_screenshot(driver, "dashboard-phone", PHONE[0], mobile=True)


def test_panels_show_the_node_state(node, page):
    wait_for(page, lambda: "15 fps" in text_of(page, "recorder-facts"))
    assert "REC" in text_of(page, "recording-badge")
    assert "Dropped frames" in text_of(page, "recorder-facts")
    assert "Faces masked" in text_of(page, "recorder-facts")
    assert "Face detector" not in text_of(page, "recorder-facts"), "privacy is off: no detector runs"
    # Issue 32: the certificate the footage is signed under, by its fingerprint (32 hex bytes).
    assert re.search(r"Signing certificate \(SHA-256\)\s*([0-9A-F]{2}:){31}[0-9A-F]{2}", text_of(page, "recorder-facts"))
    # Issue 38: and the trust anchor a validator is given, by its fingerprint.
    assert re.search(r"Trust anchor \(SHA-256\)\s*([0-9A-F]{2}:){31}[0-9A-F]{2}", text_of(page, "recorder-facts"))
    assert not page.find_element(By.ID, "privacy-warning").is_displayed()
    # The badge and its reasons are the node's own verdict: "ok" on a quiet box; on a loaded
    # one the node may truthfully say "degraded" (recording below its frame rate).
    def badge_matches_the_node():
        health = node.api("/api/health")[0]
        shown = text_of(page, "health-badge")
        return shown == health["status"] and all(problem in text_of(page, "health-problems") for problem in health["problems"])
    wait_for(page, badge_matches_the_node, message=f"the badge says {text_of(page, 'health-badge')}, the node {node.api('/api/health')[0]}")
    assert "of 4.0 GiB" in text_of(page, "storage-summary")
    assert "Oldest" in text_of(page, "storage-facts")
    assert text_of(page, "uplink-badge") == "off"
    # Issue 62: the ONVIF card gives what a VMS is told: the device service at the address
    # this page reached the node on, and the user.
    wait_for(page, lambda: text_of(page, "onvif-badge") == "On")
    onvif_facts = text_of(page, "onvif-facts")
    host = urllib.parse.urlsplit(page.current_url).netloc
    assert f"http://{host}/onvif/device_service" in onvif_facts and "admin" in onvif_facts, onvif_facts


def test_degraded_privacy_is_shown(cascades_node, driver):
    driver.get(cascades_node.url + "/")
    wait_until_live(driver)
    warning = driver.find_element(By.ID, "privacy-warning")
    wait_for(driver, warning.is_displayed, timeout=10, message="no privacy warning was shown")
    assert "Privacy degraded" in warning.text and "missing.onnx" in warning.text
    wait_for(driver, lambda: "Face detector" in text_of(driver, "recorder-facts"))
    facts = text_of(driver, "recorder-facts")
    assert "cascades" in facts and "Face searches" in facts
    assert text_of(driver, "health-badge") == "degraded"
    save_full_page_screenshot(driver, "dashboard-privacy-degraded", DESKTOP[0])


def test_timeline_lists_the_chunks_and_follows_pushes(node, page):
    listed = {chunk["file"] for chunk in node.chunks()}
    shown = set(chunk_files(page))
    assert shown <= listed
    assert len(shown) >= len(listed) - 1, "a chunk on the node is missing from the timeline"

    count_chunk_list_requests(page)
    wait_for(page, lambda: set(chunk_files(page)) - shown, timeout=3 * CHUNK_MS / 1000,
             message="no new chunk appeared")
    new_files = set(chunk_files(page)) - shown
    assert new_files <= {chunk["file"] for chunk in node.chunks()}
    assert js(page, "return window.chunkListRequests") == 0, "the timeline polled instead of following chunkSaved"


def test_a_chunk_plays_in_the_video(node, page):
    show_span(page, 300)
    wait_for(page, lambda: len(chunk_files(page)) >= 2)
    block = newest_chunk_block(page)
    file = block.get_attribute("data-file")
    block.click()
    wait_for(page, lambda: video_state(page)["file"] == file and video_state(page)["time"] > 0.5, timeout=15,
             message=f"the video did not play {file}: {video_state(page)}")
    state = video_state(page)
    assert state["error"] is None and state["width"] == 640
    # A finished chunk is an ordinary MP4: Chromium takes its length from the moov (issue 31).
    timestamps = "timestamps_" + file.removeprefix("chunk_").rsplit(".", 1)[0] + ".txt"
    frames = len((node.store / timestamps).read_text().split())
    assert abs(state["duration"] - frames / 15) <= 1 / 15 + 0.002, f"{file}: Chromium says {state['duration']} s for {frames} frames"
    assert not page.find_element(By.ID, "player-error").is_displayed()
    assert "is-playing" in block.get_attribute("class")
    save_full_page_screenshot(page, "dashboard-playing", DESKTOP[0])


def test_config_change_round_trips(node, page):
    try:
        set_field(page, "config-videoChunkDurationMs", 4000)
        apply_config(page)
        wait_for(page, lambda: "Applied: Chunk length" in text_of(page, "config-status"), timeout=10,
                 message=f"not applied: {text_of(page, 'config-status')}")
        assert node.api("/api/config")[0]["config"]["videoChunkDurationMs"] == 4000

        page.refresh()
        wait_until_live(page)
        assert page.find_element(By.ID, "config-videoChunkDurationMs").get_attribute("value") == "4000"
    finally:
        node.api("/api/config", "PUT", {"videoChunkDurationMs": CHUNK_MS})


def test_bad_config_shows_the_server_error(node, page):
    set_field(page, "config-videoChunkDurationMs", 10)
    apply_config(page)
    field_error = page.find_element(By.CSS_SELECTOR, "[data-error-for=videoChunkDurationMs]")
    wait_for(page, field_error.is_displayed, timeout=10, message="no error was shown")
    assert "invalid value 10 for videoChunkDurationMs" in field_error.text
    assert "1000...3600000" in field_error.text
    assert "refused" in text_of(page, "config-status")
    field = page.find_element(By.ID, "config-videoChunkDurationMs")
    assert field.get_attribute("aria-invalid") == "true"
    assert node.api("/api/config")[0]["config"]["videoChunkDurationMs"] == CHUNK_MS
    save_full_page_screenshot(page, "dashboard-config-error", DESKTOP[0])
    # Chromium logs every 4xx answer; the refused PUT is the only one allowed here.
    unexpected = [entry for entry in severe_console_entries(page) if "/api/config" not in entry["message"]]
    assert unexpected == []


def test_setting_that_needs_a_restart_is_reported(node, page):
    Select(page.find_element(By.ID, "config-privacy")).select_by_value("face")
    apply_config(page)
    wait_for(page, lambda: "needs a restart" in text_of(page, "config-status"), timeout=10,
             message=f"status: {text_of(page, 'config-status')}")
    assert "Privacy mode" in text_of(page, "config-status")
    assert page.find_element(By.ID, "config-privacy").get_attribute("value") == "none"
    assert node.api("/api/config")[0]["config"]["privacy"] == "none"


def test_range_lists_chunks_and_downloads_a_clip(page, downloads):
    page.find_element(By.CSS_SELECTOR, "#range-form button[type=submit]").click()
    rows = lambda: page.find_elements(By.CSS_SELECTOR, "#range-results tbody tr")
    wait_for(page, lambda: len(rows()) >= 2, timeout=10, message=text_of(page, "range-status"))
    assert "chunks" in text_of(page, "range-status")
    assert [button.text for button in rows()[0].find_elements(By.TAG_NAME, "button")] == ["Play", "Video", "Frame times"]

    page.find_element(By.ID, "range-clip").click()
    wait_for(page, lambda: "Saved clip_" in text_of(page, "range-status"), timeout=30,
             message=text_of(page, "range-status"))
    clip = wait_for(page, lambda: next(iter(downloads.glob("clip_*.mp4")), None), timeout=15,
                    message="the clip was not saved")
    assert clip.read_bytes()[4:8] == b"ftyp"

    rows()[0].find_elements(By.TAG_NAME, "button")[2].click()
    timestamps = wait_for(page, lambda: next(iter(downloads.glob("timestamps_*.txt")), None), timeout=15,
                          message="the frame times were not saved")
    assert timestamps.stat().st_size > 0
