"""The clock panel against a real node: it shows what the kernel itself says about its clock."""

import ctypes
import ctypes.util

import pytest
from selenium.common.exceptions import TimeoutException
from selenium.webdriver.common.by import By

from browser import DESKTOP, PHONE, emulate_viewport, save_full_page_screenshot, severe_console_entries
from dashboard_page import js, text_of, wait_for, wait_until_live

# pytest-xdist (scripts/test.sh, --dist loadgroup): it reads the kernel clock's state, which
# Tests/protocol/test_clock.py sets: one at a time (and its node fixtures built once).
pytestmark = pytest.mark.xdist_group("kernel-clock")

# <sys/timex.h>: adjtimex's answer while the clock is unsynchronised, and the status bit that says so.
TIME_ERROR = 5
STA_UNSYNC = 0x40
SYNC_LABELS = {True: "synchronised", False: "not synchronised"}


class Timex(ctypes.Structure):
    """struct timex as glibc's adjtimex symbol takes it; longs are the platform's C long."""
    _fields_ = [
        ("modes", ctypes.c_uint), ("offset", ctypes.c_long), ("freq", ctypes.c_long),
        ("maxerror", ctypes.c_long), ("esterror", ctypes.c_long), ("status", ctypes.c_int),
        ("constant", ctypes.c_long), ("precision", ctypes.c_long), ("tolerance", ctypes.c_long),
        ("time_sec", ctypes.c_long), ("time_usec", ctypes.c_long), ("tick", ctypes.c_long),
        ("ppsfreq", ctypes.c_long), ("jitter", ctypes.c_long), ("shift", ctypes.c_int),
        ("stabil", ctypes.c_long), ("jitcnt", ctypes.c_long), ("calcnt", ctypes.c_long),
        ("errcnt", ctypes.c_long), ("stbcnt", ctypes.c_long), ("tai", ctypes.c_int),
        ("reserved", ctypes.c_int * 11),
    ]


def read_kernel_clock():
    """The kernel's clock state, read-only (modes = 0), as the node reads it."""
    libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
    timex = Timex()
    state = libc.adjtimex(ctypes.byref(timex))
    if state < 0:
        raise OSError(ctypes.get_errno(), "adjtimex failed")
    return {
        "synchronized": state != TIME_ERROR and (timex.status & STA_UNSYNC) == 0,
        "state": state,
        "estimatedErrorMs": timex.esterror / 1000,
        "maximumErrorMs": timex.maxerror / 1000,
    }


def shown_ms(driver, element_id):
    """A value the panel shows as "<number> ms", or None when it shows something else."""
    number, _, unit = text_of(driver, element_id).partition(" ")
    try:
        return float(number) if unit == "ms" else None
    except ValueError:
        return None


def close(shown, actual):
    # The maximum error grows by up to 0.5 ms a second between the node's reading and this one;
    # the panel rounds values of 100 ms and more to whole ms.
    return shown is not None and abs(shown - actual) <= 5 + 0.02 * actual


def wait_or_fail(driver, condition, describe, timeout=10):
    """Waits for condition; on timeout fails with describe(), evaluated then rather than up front."""
    try:
        wait_for(driver, condition, timeout=timeout)
    except TimeoutException:
        pytest.fail(describe())


@pytest.fixture
def page(node, driver):
    driver.get(node.url + "/")
    wait_until_live(driver)
    wait_for(driver, lambda: text_of(driver, "clock-sync") in SYNC_LABELS.values(),
             message="the clock panel shows no synchronisation state")
    return driver


def test_clock_panel_shows_the_kernel_sync_state(node, page):
    panel = page.find_element(By.ID, "clock-panel")
    assert panel.is_displayed()

    # Read afresh on every try: an NTP daemon may synchronise the clock while the test runs.
    def panel_agrees_with_kernel():
        kernel = read_kernel_clock()
        return (text_of(page, "clock-sync") == SYNC_LABELS[kernel["synchronized"]]
                and close(shown_ms(page, "clock-error"), kernel["estimatedErrorMs"])
                and close(shown_ms(page, "clock-max-error"), kernel["maximumErrorMs"]))

    wait_or_fail(page, panel_agrees_with_kernel, lambda: (
        f"the panel shows {text_of(page, 'clock-sync')!r}, estimated error {text_of(page, 'clock-error')!r}, "
        f"maximum {text_of(page, 'clock-max-error')!r}; the kernel says {read_kernel_clock()}; "
        f"the node reports {node.api('/api/health')[0].get('clock')}"))

    # The panel lists the node's clock problems, and stands out when there is one or the clock is unsynchronised.
    def clock_problems():
        problems = node.api("/api/health")[0]["problems"]
        return [problem for problem in problems if problem.startswith(("clock:", "edge clock:"))]

    shown_problems = lambda: [item.text for item in page.find_elements(By.CSS_SELECTOR, "#clock-problems li")]
    wait_or_fail(page, lambda: shown_problems() == clock_problems(),
                 lambda: f"the panel lists {shown_problems()}, the node {clock_problems()}")
    synchronized = text_of(page, "clock-sync") == SYNC_LABELS[True]
    highlighted = "needs-attention" in panel.get_attribute("class")
    assert highlighted == (not synchronized or bool(shown_problems())), (
        f"highlighted={highlighted} with {text_of(page, 'clock-sync')!r} and problems {shown_problems()}")

    assert severe_console_entries(page) == []
    save_full_page_screenshot(page, "dashboard-clock", DESKTOP[0])


def test_edge_clock_says_the_uplink_is_off(node, driver):
    status = node.api("/api/status")[0]
    assert status["uplink"]["state"] == "off" and status["uplink"]["edgeClock"] is None, status["uplink"]

    emulate_viewport(driver, *PHONE, mobile=True)
    driver.get(node.url + "/")
    wait_until_live(driver)
    wait_or_fail(driver, lambda: "uplink is off" in text_of(driver, "edge-clock-state"),
                 lambda: f"the edge clock part says {text_of(driver, 'edge-clock-state')!r}")
    assert not driver.find_element(By.ID, "edge-clock-facts").is_displayed()
    # Unmeasured, the edge server's clock cannot be the reference, whatever uplink.timeReference asks for.
    assert text_of(driver, "clock-time-reference").startswith("node's clock")
    assert not any(item.text.startswith("edge clock:")
                   for item in driver.find_elements(By.CSS_SELECTOR, "#clock-problems li"))
    assert js(driver, "return document.documentElement.scrollWidth") <= PHONE[0]
    save_full_page_screenshot(driver, "dashboard-clock-phone", PHONE[0], mobile=True)
