import Testing
@testable import AllSparkNode

/// How the `source` setting names what to record (no camera needed: the catalog is given).
struct CaptureSourceTests {
    private func camera(_ path: String, name: String, busInfo: String) -> V4L2Catalog.Camera {
        V4L2Catalog.Camera(devicePath: path, name: name, driver: "uvcvideo", busInfo: busInfo, formats: [])
    }

    @Test("auto takes the first capture device, wherever it is numbered, and follows it by bus info")
    func autoFollowsTheFirstCamera() {
        let cameras = [camera("/dev/video4", name: "HD Webcam", busInfo: "usb-0000:00:14.0-2")]
        #expect(CaptureSource.resolve("auto", cameras: { cameras }) == .namedCamera("usb-0000:00:14.0-2"))
        let noBusInfo = [camera("/dev/video2", name: "odd driver", busInfo: "")]
        #expect(CaptureSource.resolve("auto", cameras: { noBusInfo }) == .camera(devicePath: "/dev/video2"))
        #expect(CaptureSource.resolve("auto", cameras: { [] }) == .testPattern)
    }

    @Test("v4l2:<name>, device paths, stable links, the test pattern and files")
    func settings() {
        #expect(CaptureSource.resolve("v4l2:HD Webcam", cameras: { [] }) == .namedCamera("HD Webcam"))
        #expect(CaptureSource.resolve("/dev/video0", cameras: { [] }) == .camera(devicePath: "/dev/video0"))
        let link = "/dev/v4l/by-id/usb-Logitech_C920-video-index0"
        #expect(CaptureSource.resolve(link, cameras: { [] }) == .camera(devicePath: link))
        #expect(CaptureSource.resolve("testsrc", cameras: { [] }) == .testPattern)
        #expect(CaptureSource.resolve("/data/clip.mp4", cameras: { [] }) == .file(path: "/data/clip.mp4"))
        #expect(CaptureSource.namedCamera("platform:vivid-000").isLive && !CaptureSource.file(path: "x").isLive)
    }

    @Test("a camera is named by its card name or its bus info")
    func naming() {
        let webcam = camera("/dev/video0", name: "HD Webcam", busInfo: "usb-0000:00:14.0-2")
        #expect(webcam.isNamed("HD Webcam") && webcam.isNamed("usb-0000:00:14.0-2") && !webcam.isNamed("HD"))
    }

    @Test("the sizes a camera offers are listed with the formats offering them")
    func sizesOffered() {
        func size(_ width: Int, _ height: Int) -> V4L2Catalog.SizeOffer {
            .init(range: .init(minWidth: width, maxWidth: width, widthStep: 1, minHeight: height, maxHeight: height, heightStep: 1), maxFrameRate: 30)
        }
        let wide = V4L2Catalog.SizeOffer(
            range: .init(minWidth: 32, maxWidth: 1920, widthStep: 2, minHeight: 32, maxHeight: 1080, heightStep: 2), maxFrameRate: 30)
        let camera = V4L2Catalog.Camera(
            devicePath: "/dev/video0", name: "cam", driver: "d", busInfo: "b",
            formats: [
                .init(fourcc: "YUYV", description: "", sizes: [size(320, 180), size(640, 360)]),
                .init(fourcc: "NV12", description: "", sizes: [size(320, 180), size(640, 360)]),
                .init(fourcc: "GREY", description: "", sizes: [wide]),
            ])
        #expect(LibavCapture.sizesOffered(by: camera) == "320x180, 640x360 (YUYV, NV12); 32x32-1920x1080 (GREY)")
    }
}
