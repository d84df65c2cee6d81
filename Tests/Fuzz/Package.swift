// swift-tools-version:6.0
import PackageDescription

// The fuzz targets: one libFuzzer binary over the node's library, built with
// `--sanitize fuzzer --sanitize address` by scripts/fuzz.sh (a package of its own, so the
// node's ordinary build never links libFuzzer's main). Each target runs under its own name.
let package = Package(
    name: "allspark-fuzz",
    dependencies: [
        .package(name: "allspark-node", path: "../.."),
        .package(url: "https://github.com/apple/swift-crypto", "3.0.0"..<"5.0.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.0"),
        .package(url: "https://github.com/hummingbird-project/swift-websocket", from: "1.2.0"),
    ],
    targets: [
        .executableTarget(
            name: "AllSparkFuzz",
            dependencies: [
                .product(name: "AllSparkNode", package: "allspark-node"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "WSCore", package: "swift-websocket"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
