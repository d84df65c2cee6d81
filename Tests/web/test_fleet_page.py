"""The Fleet page against real nodes archiving to a real radosgw: every node with its
status, "export this range from all" giving one zip with a folder per node whose files
are the nodes' own, byte for byte, and "hold this range on all" holding it on the running
node and in the bucket for the stopped one, as the node's timeline then shows."""
import io
import json
import time
import uuid
import zipfile

from selenium.webdriver.common.by import By

from browser import DESKTOP, save_full_page_screenshot, severe_console_entries
from dashboard_page import js, wait_for
from node_process import RunningNode
import pytest

# pytest-xdist (scripts/test.sh, --dist loadgroup): the module's node fixtures are built once on one worker.
pytestmark = pytest.mark.xdist_group("web-fleet-page")


def start(radosgw, bucket, work, name):
    return RunningNode(
        work, extra=("--archive-endpoint", radosgw.endpoint, "--archive-bucket", bucket, "--archive-prefix", f"{name}/",
                     "--size", "160x90", "--fps", "5"),
        env={"AWS_ACCESS_KEY_ID": radosgw.access_key, "AWS_SECRET_ACCESS_KEY": radosgw.secret_key,
             "ALLSPARK_UPLINK_NAME": name, "ALLSPARK_SERVER_ANNOUNCE": "false"})


def test_fleet_page_lists_nodes_and_exports_a_range_from_all(radosgw, tmp_path_factory, driver, downloads):
    bucket = f"web-fleet-{uuid.uuid4().hex[:8]}"
    radosgw.s3().create_bucket(Bucket=bucket)
    start_ms = int(time.time() * 1000)
    here = start(radosgw, bucket, tmp_path_factory.mktemp("here"), "here-601")
    gone = start(radosgw, bucket, tmp_path_factory.mktemp("gone"), "gone-602")
    try:
        for node in (here, gone):
            node.wait_for_chunks(3)
        gone.stop()
        end_ms = int(time.time() * 1000)

        driver.get(here.url + "/fleet.html")
        rows = lambda: {row.find_element(By.CSS_SELECTOR, "td").text: row.text
                        for row in driver.find_elements(By.CSS_SELECTOR, "#fleet-nodes tr")}
        wait_for(driver, lambda: {"here-601", "gone-602"} <= set(rows()), message=f"the table shows {rows()}")
        assert "online" in rows()["here-601"] and "offline" in rows()["gone-602"] and "ago" in rows()["gone-602"]

        js(driver, "document.getElementById('export-start').value = arguments[0];"
                   "document.getElementById('export-end').value = arguments[1];",
           local_input(driver, start_ms), local_input(driver, end_ms + 1000))
        driver.find_element(By.ID, "export-button").click()
        link = wait_for(driver, lambda: driver.find_elements(By.CSS_SELECTOR, "#export-result a"), timeout=120,
                        message=f"the export finishes: {driver.find_element(By.ID, 'export-status').text}"
                                f" {driver.find_element(By.ID, 'export-error').text}")[0]
        assert "everything that exists was fetched" in driver.find_element(By.ID, "export-status").text
        link.click()
        archive = wait_for(driver, lambda: [p for p in downloads.glob("*.zip")], message="the zip is downloaded")[0]
        wait_for(driver, lambda: zipfile.is_zipfile(archive), message="the zip is whole")
        with zipfile.ZipFile(archive) as export:
            manifest = json.loads(export.read("manifest.json"))
            reports = {node["name"]: node for node in manifest["nodes"]}
            assert {"here-601", "gone-602"} <= set(reports) and manifest["complete"]
            assert reports["gone-602"]["state"] == "offline"
            for name, node in (("here-601", here), ("gone-602", gone)):
                assert reports[name]["chunks"], f"{name}: no chunks"
                for chunk in reports[name]["chunks"]:
                    for file in (chunk["file"], chunk["timestampsFile"]):
                        assert export.read(f"{reports[name]['folder']}/{file}") == (node.store / file).read_bytes()

        # "Hold this range on all": the running node holds it, the stopped one in the bucket.
        js(driver, "document.getElementById('hold-start').value = arguments[0];"
                   "document.getElementById('hold-end').value = arguments[1];",
           local_input(driver, start_ms), local_input(driver, end_ms))
        driver.find_element(By.ID, "hold-reason").send_keys("incident 12")
        driver.find_element(By.ID, "hold-button").click()
        results = lambda: {item.get_attribute("data-outcome") for item in driver.find_elements(By.CSS_SELECTOR, "#hold-results li")}
        wait_for(driver, lambda: {"held", "heldInBucket"} <= results(), timeout=60,
                 message=f"the hold's report: {driver.find_element(By.ID, 'hold-status').text} {driver.find_element(By.ID, 'hold-error').text}")
        assert ": 2 of 2 nodes." in driver.find_element(By.ID, "hold-status").text
        waiting = radosgw.s3().list_objects_v2(Bucket=bucket, Prefix="gone-602/holds/").get("Contents", [])
        assert len(waiting) == 1, waiting
        holds = radosgw.s3().get_object(Bucket=bucket, Key=waiting[0]["Key"])["Body"].read()
        assert b"incident 12" in holds
        assert severe_console_entries(driver) == []
        save_full_page_screenshot(driver, "fleet-page", DESKTOP[0])

        # The node's own timeline shows the hold and marks its chunks held.
        driver.get(here.url + "/")
        wait_for(driver, lambda: driver.find_elements(By.CSS_SELECTOR, "#timeline-holds .hold-band"), timeout=30,
                 message="a hold band under the timeline")
        wait_for(driver, lambda: driver.find_elements(By.CSS_SELECTOR, ".chunk-block.is-held"), timeout=30, message="held chunks marked")
        assert "hold keeps" in driver.find_element(By.ID, "timeline-retention").text
    finally:
        here.stop()
        if gone.process.poll() is None:
            gone.stop()


def local_input(driver, ms):
    """A datetime-local value for `ms` in the browser's time zone."""
    return js(driver, "const d = new Date(arguments[0]); const p = (v) => String(v).padStart(2, '0');"
                      "return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}T${p(d.getHours())}:"
                      "${p(d.getMinutes())}:${p(d.getSeconds())}`;", ms)
