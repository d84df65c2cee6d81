"""What the tests read from and do on the dashboard page, in one place."""

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select, WebDriverWait

READY_TIMEOUT = 30


def wait_for(driver, condition, timeout=READY_TIMEOUT, message=""):
    return WebDriverWait(driver, timeout, poll_frequency=0.2).until(lambda _: condition(), message)


def js(driver, script, *arguments):
    return driver.execute_script(script, *arguments)


def wait_until_live(driver):
    """Waits for a picture (live video, or the snapshot where the page fell back to it), the
    chunk timeline, the config form, the WebSocket, and the status poll that lists this page
    as a peer."""
    wait_for(driver, lambda: js(driver, """
        return !!(document.getElementById('snapshot').dataset.captureMs
                  || document.getElementById('live-video').dataset.captureMs)"""),
             message="neither live video nor a snapshot was shown")
    wait_for(driver, lambda: len(chunk_files(driver)) >= 2, message="the timeline shows no chunks")
    wait_for(driver, lambda: js(driver, "return document.getElementById('config-videoChunkDurationMs').value") != "",
             message="the config form was not filled")
    wait_for(driver, lambda: text_of(driver, "connection-state") == "Live", message="the WebSocket did not connect")
    wait_for(driver, lambda: "dashboard" in text_of(driver, "peer-list"), message="this page is not listed as a peer")


def text_of(driver, element_id):
    return driver.find_element(By.ID, element_id).text


def chunk_files(driver):
    return js(driver, "return [...document.querySelectorAll('#timeline-track .chunk-block')].map(b => b.dataset.file)")


def show_span(driver, seconds):
    """Picks the timeline's window and waits until the track was loaded for it."""
    Select(driver.find_element(By.ID, "timeline-span")).select_by_value(str(seconds))
    wait_for(driver, lambda: js(driver, "return document.getElementById('timeline-track').dataset.loadedSpan") == str(seconds),
             message=f"the timeline was not loaded for {seconds} s")


def newest_chunk_block(driver):
    """The newest chunk's button: it lies on top where blocks a few pixels wide overlap."""
    return driver.find_element(By.CSS_SELECTOR, "#timeline-track .chunk-block:last-child")


PIXEL_FINGERPRINT = """
    const fingerprint = (source, width, height) => {
        const canvas = document.createElement('canvas');
        canvas.width = width;
        canvas.height = height;
        const context = canvas.getContext('2d');
        context.drawImage(source, 0, 0);
        const pixels = context.getImageData(0, 0, canvas.width, canvas.height).data;
        let hash = 0;
        for (let index = 0; index < pixels.length; index += 4 * 61) {
            hash = (hash * 31 + pixels[index] + 3 * pixels[index + 1] + 7 * pixels[index + 2]) >>> 0;
        }
        return hash;
    };
"""


def live_video_state(driver):
    """The live <video>: whether shown, its currentTime, the shown frame's capture time and
    lag behind live (from the page), and a fingerprint of its pixels."""
    return js(driver, PIXEL_FINGERPRINT + """
        const video = document.getElementById('live-video');
        const shown = !video.hidden && video.videoWidth > 0;
        return {
            shown,
            currentTime: video.currentTime,
            captureMs: Number(video.dataset.captureMs || 0),
            behindMs: video.dataset.behindMs === undefined ? null : Number(video.dataset.behindMs),
            pixels: shown ? fingerprint(video, video.videoWidth, video.videoHeight) : null,
            mode: document.getElementById('live-mode').textContent,
            behindText: document.getElementById('live-behind').textContent,
        };
    """)


def snapshot_state(driver):
    """The shown frame's capture time and a fingerprint of its pixels."""
    return js(driver, PIXEL_FINGERPRINT + """
        const image = document.getElementById('snapshot');
        return [Number(image.dataset.captureMs), fingerprint(image, image.naturalWidth, image.naturalHeight)];
    """)


def count_chunk_list_requests(driver):
    """From now on, counts the page's GET /api/chunks list requests (not chunk files)."""
    js(driver, """
        window.chunkListRequests = 0;
        const originalFetch = window.fetch;
        window.fetch = (resource, options) => {
            if (String(resource).startsWith('/api/chunks?')) window.chunkListRequests += 1;
            return originalFetch(resource, options);
        };
    """)


def video_state(driver):
    return js(driver, """
        const video = document.getElementById('chunk-video');
        return {file: video.dataset.file, time: video.currentTime, paused: video.paused,
                error: video.error && video.error.code, width: video.videoWidth, duration: video.duration};
    """)


def set_field(driver, element_id, value):
    field = driver.find_element(By.ID, element_id)
    field.clear()
    field.send_keys(str(value))


def apply_config(driver):
    driver.find_element(By.CSS_SELECTOR, "#config-form button[type=submit]").click()
