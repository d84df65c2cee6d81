"""The dashboard against a node that runs with --token: asked once, kept for the session."""

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from browser import DESKTOP, PHONE, emulate_viewport, save_full_page_screenshot, severe_console_entries
from dashboard_page import newest_chunk_block, text_of, video_state, wait_for, wait_until_live

# pytest-xdist (scripts/test.sh, --dist loadgroup): the module's node fixtures are built once on one worker.
pytestmark = pytest.mark.xdist_group("web-token-access")


def enter_token(driver, token):
    field = driver.find_element(By.ID, "token-input")
    field.clear()
    field.send_keys(token, Keys.ENTER)


def errors_other_than_refused_tokens(entries):
    """Chromium logs each 401 answer; those are expected while the token is missing or wrong."""
    return [entry for entry in entries if "401" not in entry["message"]]


def test_the_api_needs_the_token(token_node):
    assert token_node.api("/api/status", authorized=False)[1] == 401
    assert token_node.api("/api/status")[1] == 200


def test_page_asks_for_the_token_then_works(token_node, driver):
    driver.get(token_node.url + "/")
    dialog = driver.find_element(By.ID, "token-dialog")
    wait_for(driver, dialog.is_displayed, message="the page did not ask for the token")
    assert "needs its access token" in text_of(driver, "token-reason")
    save_full_page_screenshot(driver, "token-prompt", DESKTOP[0])

    enter_token(driver, "not-the-token")
    wait_for(driver, lambda: "refused" in text_of(driver, "token-reason") and dialog.is_displayed(),
             message="a wrong token was not refused")

    enter_token(driver, token_node.token)
    wait_for(driver, lambda: not dialog.is_displayed(), message="the right token was not accepted")
    wait_until_live(driver)

    block = newest_chunk_block(driver)
    block.click()
    wait_for(driver, lambda: video_state(driver)["time"] > 0.5, timeout=15,
             message=f"the chunk did not play with the token: {video_state(driver)}")
    assert errors_other_than_refused_tokens(severe_console_entries(driver)) == []


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_token_is_kept_for_the_session(token_node, driver, viewport):
    emulate_viewport(driver, *viewport, mobile=viewport == PHONE)
    driver.get(token_node.url + "/")
    enter_token(driver, token_node.token)
    wait_until_live(driver)
    severe_console_entries(driver)

    driver.refresh()
    wait_until_live(driver)
    assert not driver.find_element(By.ID, "token-dialog").is_displayed()
    assert severe_console_entries(driver) == []
