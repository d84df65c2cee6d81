"""Headless Chromium through chromedriver, with the helpers the dashboard tests share."""

import base64
import os
import time
from pathlib import Path

from selenium import webdriver
from selenium.webdriver.chrome.service import Service

ARTIFACTS = Path(__file__).resolve().parent / "artifacts"
DESKTOP = (1366, 900)
PHONE = (390, 844)


def start_chromium(download_dir):
    options = webdriver.ChromeOptions()
    options.binary_location = os.environ.get("CHROMIUM_BIN", "/usr/bin/chromium")
    for argument in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        f"--window-size={DESKTOP[0]},{DESKTOP[1]}",
        # Some chunks start playing after an await; the test must not depend on a user gesture.
        "--autoplay-policy=no-user-gesture-required",
    ):
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    options.add_experimental_option("prefs", {
        "download.default_directory": str(download_dir),
        "download.prompt_for_download": False,
    })
    service = Service(os.environ.get("CHROMEDRIVER_BIN", "/usr/bin/chromedriver"))
    return webdriver.Chrome(service=service, options=options)


def severe_console_entries(driver):
    """The browser log's SEVERE entries since the last call (reading the log empties it)."""
    return [entry for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]


def emulate_viewport(driver, width, height, mobile):
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
        "width": width, "height": height, "deviceScaleFactor": 1, "mobile": mobile,
    })


def save_full_page_screenshot(driver, name, width, mobile=False):
    """Saves the whole page, not just the viewport, as Tests/web/artifacts/<name>.png."""
    ARTIFACTS.mkdir(exist_ok=True)
    # Otherwise the capture leaves out a scrollbar's width at the right edge of the page.
    driver.execute_cdp_cmd("Emulation.setScrollbarsHidden", {"hidden": True})
    height = driver.execute_script("return document.documentElement.scrollHeight")
    emulate_viewport(driver, width, height, mobile)
    time.sleep(0.5)
    height = driver.execute_script("return document.documentElement.scrollHeight")
    emulate_viewport(driver, width, height, mobile)
    picture = driver.execute_cdp_cmd("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True})
    path = ARTIFACTS / f"{name}.png"
    path.write_bytes(base64.b64decode(picture["data"]))
    driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
    driver.execute_cdp_cmd("Emulation.setScrollbarsHidden", {"hidden": False})
    return path
