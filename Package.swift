// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "allspark-node",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "allspark-node", targets: ["allspark-node"]),
        .library(name: "AllSparkNode", targets: ["AllSparkNode"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.6.0"),
        .package(url: "https://github.com/jpsim/Yams", from: "5.0.1"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.80.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket", from: "2.8.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.0"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.30.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.30.0"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.3.0"),
        .package(url: "https://github.com/hummingbird-project/swift-websocket", from: "1.2.0"),
        .package(url: "https://github.com/apple/swift-certificates", from: "1.10.0"),
        .package(url: "https://github.com/apple/swift-crypto", "3.0.0"..<"5.0.0"),
        .package(url: "https://github.com/apple/swift-asn1", from: "1.0.0"),
        .package(url: "https://github.com/weichsel/ZIPFoundation", from: "0.9.19"),
    ],
    targets: [
        // FFmpeg's libraries, found through pkg-config; shim.h exposes the macros Swift cannot see.
        .systemLibrary(
            name: "CFFmpeg",
            pkgConfig: "libavformat libavcodec libavutil libswscale libavdevice",
            providers: [.apt(["libavformat-dev", "libavcodec-dev", "libavutil-dev", "libswscale-dev", "libavdevice-dev"])]
        ),
        // libavahi-client, for publishing the node and finding edge servers with mDNS.
        .systemLibrary(name: "CAvahi", pkgConfig: "avahi-client", providers: [.apt(["libavahi-client-dev"])]),
        // libsystemd's sd_notify, for Type=notify readiness, status and the watchdog.
        .systemLibrary(name: "CSystemd", pkgConfig: "libsystemd", providers: [.apt(["libsystemd-dev"])]),
        // The three V4L2 ioctls `allspark-node devices` needs (ioctl is variadic: not callable from Swift).
        .target(name: "CV4L2"),
        // adjtimex(2), read only: the kernel's own view of how good its clock is.
        .target(name: "CKernelClock"),
        // prctl(2): process-wide memory settings.
        .target(name: "CProcessSettings"),
        // A small C API over OpenCV's face detectors and optical flow (C++ lives only here).
        .target(
            name: "COpenCVShim",
            cxxSettings: [.unsafeFlags(["-I/usr/include/opencv4"])],
            linkerSettings: [
                .linkedLibrary("opencv_objdetect"),
                .linkedLibrary("opencv_dnn"),
                .linkedLibrary("opencv_video"),
                .linkedLibrary("opencv_imgproc"),
                .linkedLibrary("opencv_core"),
            ]
        ),
        // A small C API over ONNX Runtime's, opened with dlopen: the face net's faster engine
        // where the library is installed (Debian 13's package, or the PyPI build on Debian 12).
        .target(name: "COnnxRuntimeShim", linkerSettings: [.linkedLibrary("dl")]),
        // GStreamer's RTSP server library and appsrc, found through pkg-config (for CRTSPShim).
        .systemLibrary(
            name: "CGStreamer",
            pkgConfig: "gstreamer-rtsp-server-1.0 gstreamer-rtsp-1.0 gstreamer-app-1.0",
            providers: [.apt(["libgstrtspserver-1.0-dev", "libgstreamer-plugins-base1.0-dev"])]
        ),
        // libxml2's parser, for ONVIF's SOAP requests (no network, no DTDs, no entity substitution).
        .systemLibrary(name: "CLibXML2", pkgConfig: "libxml-2.0", providers: [.apt(["libxml2-dev"])]),
        // A small C API over GStreamer's RTSP server: the /live mount fed through appsrc.
        .target(name: "CRTSPShim", dependencies: ["CGStreamer"]),
        .target(
            name: "AllSparkNode",
            dependencies: [
                "CFFmpeg",
                "CRTSPShim",
                "COpenCVShim",
                "COnnxRuntimeShim",
                "CV4L2",
                "CKernelClock",
                "CProcessSettings",
                "CAvahi",
                "CSystemd",
                "CLibXML2",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "HummingbirdWSClient", package: "hummingbird-websocket"),
                .product(name: "WSCore", package: "swift-websocket"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "_NIOFileSystem", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "Yams", package: "Yams"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "ZIPFoundation", package: "ZIPFoundation"),
            ]
        ),
        .executableTarget(
            name: "allspark-node",
            dependencies: [
                "AllSparkNode",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        .testTarget(
            name: "AllSparkNodeTests",
            dependencies: [
                "AllSparkNode",
                "CFFmpeg",
                // What the fuzz targets (FuzzTargets, a link to Tests/Fuzz's) import: the suite
                // runs each over its corpus.
                "CAvahi",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "WSCore", package: "swift-websocket"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
