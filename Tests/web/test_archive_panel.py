"""The archive card against real nodes archiving to a real radosgw: what it shows is what
/api/status says, and a failing bucket stands out with the store's own error."""
import uuid

import pytest
from selenium.webdriver.common.by import By

from browser import DESKTOP, save_full_page_screenshot, severe_console_entries
from dashboard_page import text_of, wait_for, wait_until_live
from node_process import RunningNode

# pytest-xdist (scripts/test.sh, --dist loadgroup): the module's node and S3 service are module fixtures: one worker builds them once.
pytestmark = pytest.mark.xdist_group("web-archive-panel")


def facts(driver):
    """The card's <dl> as {label: value}, read in one script: the card is redrawn with each
    status, and elements found one call earlier may be gone by the next."""
    pairs = driver.execute_script(
        "return Array.from(document.querySelectorAll('#archive-facts dt'), term =>"
        " [term.innerText.trim(), term.nextElementSibling ? term.nextElementSibling.innerText.trim() : ''])")
    return dict(pairs)


@pytest.fixture
def archiving_node(radosgw, tmp_path_factory, request):
    """A node archiving to a bucket that exists, or (param "missing") to one that does not."""
    bucket = f"web-{uuid.uuid4().hex[:12]}"
    if request.param == "existing":
        radosgw.s3().create_bucket(Bucket=bucket)
    running = RunningNode(
        tmp_path_factory.mktemp("archive-node"),
        extra=("--archive-endpoint", radosgw.endpoint, "--archive-bucket", bucket, "--archive-prefix", "web/"),
        env={"AWS_ACCESS_KEY_ID": radosgw.access_key, "AWS_SECRET_ACCESS_KEY": radosgw.secret_key})
    try:
        running.wait_for_chunks(1)
        yield running
    finally:
        running.stop()


@pytest.mark.parametrize("archiving_node", ["existing"], indirect=True)
def test_archive_card_shows_what_is_archived(archiving_node, driver):
    driver.get(archiving_node.url + "/")
    wait_until_live(driver)
    panel = driver.find_element(By.ID, "archive-panel")
    wait_for(driver, lambda: panel.is_displayed(), message="the archive card is hidden")

    def card_matches_status():
        archive = archiving_node.api("/api/status")[0]["archive"]
        shown = facts(driver)
        return (archive["chunksArchived"] >= 1 and shown.get("Archived", "").startswith(f"{archive['chunksArchived']} chunks")
                and archive)

    archive = wait_for(driver, card_matches_status, message=f"the card shows {facts(driver)}")
    shown = facts(driver)
    assert shown["Bucket"].startswith(archive["bucket"]) and "(web/)" in shown["Bucket"]
    assert text_of(driver, "archive-state") in ("up to date", "uploading")
    assert shown["Failures"] == "0" and shown["Last error"] == "none"
    assert "needs-attention" not in panel.get_attribute("class")
    assert severe_console_entries(driver) == []
    save_full_page_screenshot(driver, "dashboard-archive", DESKTOP[0])


@pytest.mark.parametrize("archiving_node", ["missing"], indirect=True)
def test_archive_card_says_why_the_bucket_fails(archiving_node, driver):
    driver.get(archiving_node.url + "/")
    wait_until_live(driver)
    wait_for(driver, lambda: text_of(driver, "archive-state") == "failing, retrying",
             message=f"the card's state is {text_of(driver, 'archive-state')!r}")
    problems = lambda: driver.execute_script(
        "return Array.from(document.querySelectorAll('#archive-problems li'), item => item.innerText.trim())")
    wait_for(driver, lambda: any("NoSuchBucket" in problem for problem in problems()),
             message=f"the card lists {problems()}")
    assert "needs-attention" in driver.find_element(By.ID, "archive-panel").get_attribute("class")
    assert "NoSuchBucket" in facts(driver)["Last error"]


def test_no_archive_card_when_the_node_does_not_archive(node, driver):
    driver.get(node.url + "/")
    wait_until_live(driver)
    assert node.api("/api/status")[0]["archive"] == {"enabled": False}
    assert not driver.find_element(By.ID, "archive-panel").is_displayed()
