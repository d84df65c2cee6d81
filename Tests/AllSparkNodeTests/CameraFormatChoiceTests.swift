import Testing
@testable import AllSparkNode

/// `cameraFormat: auto` against the format lists real cameras report. There is no camera on
/// the test machines, so the lists are written out here (what VIDIOC_ENUM_FMT,
/// VIDIOC_ENUM_FRAMESIZES and VIDIOC_ENUM_FRAMEINTERVALS give for such devices); everything
/// from the list on is the node's own code.
@Suite("camera input format choice")
struct CameraFormatChoiceTests {
    typealias Offer = CameraFormatChoice.Offer

    @Test("a USB 2 webcam: MJPEG for 1080p30 (YUYV carries 5 fps there), YUYV where it reaches the rate")
    func usbWebcam() throws {
        let at1080 = [Offer(fourcc: "YUYV", maxFrameRate: 5), Offer(fourcc: "MJPG", maxFrameRate: 30)]
        #expect(CameraFormatChoice.choose(from: at1080, fps: 30)?.inputFormat == "mjpeg")
        #expect(CameraFormatChoice.choose(from: at1080, fps: 5)?.inputFormat == "yuyv422", "raw when it reaches the rate")

        let at480 = [Offer(fourcc: "YUYV", maxFrameRate: 30), Offer(fourcc: "MJPG", maxFrameRate: 30)]
        #expect(CameraFormatChoice.choose(from: at480, fps: 30)?.inputFormat == "yuyv422")
    }

    @Test("H.264 from the camera only when nothing else reaches the rate; 29.97 serves 30")
    func hardwareH264Camera() throws {
        let offers = [Offer(fourcc: "H264", maxFrameRate: 30), Offer(fourcc: "MJPG", maxFrameRate: 30000.0 / 1001), Offer(fourcc: "YUYV", maxFrameRate: 10)]
        #expect(CameraFormatChoice.choose(from: offers, fps: 30)?.inputFormat == "mjpeg")
        let withoutMJPEG = offers.filter { $0.fourcc != "MJPG" }
        #expect(CameraFormatChoice.choose(from: withoutMJPEG, fps: 30)?.inputFormat == "h264")
    }

    @Test("when no format reaches the rate, the fastest; formats libavdevice cannot read are passed over")
    func fallbacks() throws {
        let slow = [Offer(fourcc: "YUYV", maxFrameRate: 5), Offer(fourcc: "MJPG", maxFrameRate: 15)]
        let choice = try #require(CameraFormatChoice.choose(from: slow, fps: 60))
        #expect(choice.inputFormat == "mjpeg")
        #expect(choice.description == "MJPG (mjpeg, up to 15 fps)")

        let unreadable = [Offer(fourcc: "GREY", maxFrameRate: 120), Offer(fourcc: "Y16", maxFrameRate: 120)]
        #expect(CameraFormatChoice.choose(from: unreadable, fps: 30) == nil, "the driver decides")
        #expect(CameraFormatChoice.choose(from: [], fps: 30) == nil)
        let mixed = unreadable + [Offer(fourcc: "NV12", maxFrameRate: 30)]
        #expect(CameraFormatChoice.choose(from: mixed, fps: 30)?.inputFormat == "nv12")
    }

    @Test("a driver that lists no rates is taken at its word that it may reach one")
    func unknownRates() throws {
        let offers = [Offer(fourcc: "MJPG", maxFrameRate: 30), Offer(fourcc: "YUYV", maxFrameRate: nil)]
        #expect(CameraFormatChoice.choose(from: offers, fps: 30)?.inputFormat == "yuyv422")
    }

    @Test("size ranges: a discrete size holds only itself; a stepwise range holds the sizes on its steps")
    func sizeRanges() {
        let discrete = V4L2Catalog.SizeRange(minWidth: 1280, maxWidth: 1280, widthStep: 1, minHeight: 720, maxHeight: 720, heightStep: 1)
        #expect(discrete.isDiscrete)
        #expect(discrete.contains(width: 1280, height: 720))
        #expect(!discrete.contains(width: 1920, height: 1080))

        // The Raspberry Pi camera's legacy driver: 32x32 to 2592x1944 in steps of 2.
        let stepwise = V4L2Catalog.SizeRange(minWidth: 32, maxWidth: 2592, widthStep: 2, minHeight: 32, maxHeight: 1944, heightStep: 2)
        #expect(!stepwise.isDiscrete)
        #expect(stepwise.contains(width: 1920, height: 1080))
        #expect(!stepwise.contains(width: 1921, height: 1080), "off the step")
        #expect(!stepwise.contains(width: 3840, height: 2160), "over the maximum")
        #expect(!stepwise.contains(width: 16, height: 16), "under the minimum")
    }

    @Test("a path that is not a capture device offers nothing, so the driver's default stands")
    func notACamera() {
        #expect(V4L2Catalog.offers(at: "/dev/null", width: 640, height: 480).isEmpty)
        #expect(V4L2Catalog.offers(at: "/nonexistent/video0", width: 640, height: 480).isEmpty)
    }
}
