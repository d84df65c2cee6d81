/// Every key the node understands. clientConfig uses the same names (unknown keys there are
/// ignored, as PROTOCOL.md requires; in a config file they are an error, to catch typos).
public enum ConfigKeys {
    static let x264Presets = [
        "ultrafast", "superfast", "veryfast", "faster", "fast", "medium", "slow", "slower", "veryslow",
    ]

    public static let all: [ConfigKey] = [
        .text("source", \.source, allowed: "auto, testsrc, a /dev/videoN device or a media file path"),
        .integer("width", \.width, 0...7680, allowed: "0 (source size) or an even integer in 16...7680") {
            $0 == 0 || ($0 >= 16 && $0 % 2 == 0)
        },
        .integer("height", \.height, 0...4320, allowed: "0 (source size) or an even integer in 16...4320") {
            $0 == 0 || ($0 >= 16 && $0 % 2 == 0)
        },
        .decimal("fps", \.fps, 1...120),
        .choice("cameraFormat", \.cameraFormat, ["auto"] + CameraFormatChoice.preference.map(\.inputFormat)),
        .boolean("loop", \.loop),
        .boolean("pace", \.pace),
        .text("store", \.storeDirectory, allowed: "a directory path"),
        ConfigKey(
            name: "videoFormat", allowed: "one of mp4, mov", appliesWhileRunning: true,
            write: { value, config in
                guard let text = value.asText, let format = VideoFormat(rawValue: text) else { return false }
                config.videoFormat = format
                return true
            },
            read: { .text($0.videoFormat.rawValue) }),
        .integer("videoChunkDurationMs", \.videoChunkDurationMs, 1000...3_600_000, runtime: true),
        .decimal("videoBufferMaxMB", \.videoBufferMaxMB, 0.25...16_777_216, runtime: true),
        .decimal("videoBufferMaxAgeHours", \.videoBufferMaxAgeHours, 0...876_000, runtime: true),
        .decimal("videoBufferMaxHeldShare", \.videoBufferMaxHeldShare, 0...0.9, runtime: true),
        .text("encoder.codec", \.encoder.codec, allowed: "a libavcodec H.264 encoder name (libx264, h264_vaapi, h264_v4l2m2m)"),
        .choice("encoder.preset", \.encoder.preset, x264Presets),
        .integer("encoder.crf", \.encoder.crf, 0...51),
        .integer("encoder.bitrateKbps", \.encoder.bitrateKbps, 0...500_000, allowed: "0 (use crf) or kbit/s up to 500000"),
        .integer("encoder.keyframeIntervalMs", \.encoder.keyframeIntervalMs, 100...10_000),
        .optionalText(
            "encoder.options", \.encoder.options,
            allowed: "encoder options as key=value pairs separated by commas (e.g. tune=zerolatency), or empty"),
        .choice("privacy", \.privacy, PrivacyMode.allCases.map(\.rawValue)),
        .choice("privacyDetector", \.privacyDetector, FaceDetectorChoice.allCases.map(\.rawValue)),
        .optionalText("privacyModel", \.privacyModel, allowed: "the path of the face net's ONNX model (YuNet 2023mar or CenterFace), or empty for the installed one"),
        .choice("privacyEngine", \.privacyEngine, FaceNetEngineChoice.allCases.map(\.rawValue)),
        .optionalText(
            "privacyEngineLibrary", \.privacyEngineLibrary,
            allowed: "the path of libonnxruntime.so, or empty for the package's, then scripts/setup.sh's, then the system's"),
        .choice("privacyMask", \.privacyMask, MaskStyle.allCases.map(\.rawValue)),
        .integer("privacyDetectionWidth", \.privacyDetectionWidth, 160...3840),
        .boolean("privacyEveryFrame", \.privacyEveryFrame),
        .integer("privacyLookbackMs", \.privacyLookbackMs, 0...2000),
        .integer("privacyBusySearchStride", \.privacyBusySearchStride, 1...4),
        .boolean("privacyEdgeGuard", \.privacyEdgeGuard),
        .decimal("clockMaxErrorMs", \.clockMaxErrorMs, 0.001...86_400_000, runtime: true),
        .boolean("clockSyncRequired", \.clockSyncRequired),
        .optionalText("signing.certificate", \.signingCertificate, allowed: "a PEM chain file for the node's signing key (signing certificate first, its trust anchor last), or empty for the installed chain or the node's own anchor"),
        .integer("server.port", \.server.port, 0...65535, allowed: "0 (any free port) or a port in 1...65535"),
        .text("server.host", \.server.host, allowed: "an address to listen on, e.g. 0.0.0.0 or 127.0.0.1"),
        .choice("server.auth", \.server.auth, ["token", "none"]),
        .optionalText("server.token", \.server.token, allowed: "a bearer token, or empty to use the one the node makes"),
        .optionalText("server.metricsToken", \.server.metricsToken, allowed: "a bearer token also accepted on /metrics, or empty"),
        .choice("server.tls", \.server.tls, ["off", "auto"]),
        .optionalText("server.tlsCertificate", \.server.tlsCertificate, allowed: "a PEM certificate file, or empty"),
        .optionalText("server.tlsKey", \.server.tlsKey, allowed: "a PEM private key file, or empty"),
        .optionalText("server.webDirectory", \.server.webDirectory, allowed: "the dashboard's directory, or empty for the installed one"),
        .integer("server.maxUploadBytes", \.server.maxUploadBytes, 1...Int(Int32.max)),
        .integer("server.maxClipMB", \.server.maxClipMB, 1...1_048_576),
        .boolean("server.announce", \.server.announce),
        .integer("server.rtspPort", \.server.rtspPort, 0...65535, allowed: "0 (RTSP off) or a port in 1...65535"),
        .text("uplink.url", \.uplink.url, allowed: "off, auto, or a ws:// or wss:// URL") { url in
            url == "off" || url == "auto" || url.hasPrefix("ws://") || url.hasPrefix("wss://")
        },
        .optionalText("uplink.name", \.uplink.name, allowed: "a client name, or empty for the host name"),
        .choice("uplink.timeReference", \.uplink.timeReference, ["edge", "node"], runtime: true),
        .integer("uplink.clockSyncIntervalMs", \.uplink.clockSyncIntervalMs, 1000...86_400_000),
        .decimal("uplink.clockOffsetLimitMs", \.uplink.clockOffsetLimitMs, 0.001...86_400_000, runtime: true),
        .decimal("uplink.clockDriftLimitMsPerS", \.uplink.clockDriftLimitMsPerS, 0.001...1000, runtime: true),
        .text("archive.endpoint", \.archive.endpoint, allowed: "off, or an http:// or https:// URL of an S3-compatible store") { url in
            url == "off" || url.hasPrefix("http://") || url.hasPrefix("https://")
        },
        .optionalText("archive.bucket", \.archive.bucket, allowed: "an S3 bucket name"),
        .optionalText("archive.prefix", \.archive.prefix, allowed: "a key prefix such as lab/cam1/, or empty for <clientName>/"),
        .text("archive.region", \.archive.region, allowed: "an S3 region name, e.g. us-east-1"),
        .boolean("archive.pathStyle", \.archive.pathStyle),
        .optionalText("archive.credentialsFile", \.archive.credentialsFile, allowed: "an AWS shared-credentials file, or empty for AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY"),
        .decimal("archive.multipartThresholdMB", \.archive.multipartThresholdMB, 0.01...5120),
        .integer("archive.partSizeMB", \.archive.partSizeMB, 5...5120),
        .integer("archive.maxLagSeconds", \.archive.maxLagSeconds, 10...31_536_000, runtime: true),
        .decimal("archive.maxAgeDays", \.archive.maxAgeDays, 0...36_500),
        .optionalText("fleet.tokensFile", \.fleetTokensFile, allowed: "a file of `name: token` lines, or empty"),
        .boolean("fleet.shareToken", \.fleetShareToken),
        .boolean("onvif.enabled", \.onvif.enabled),
        .text("onvif.user", \.onvif.user, allowed: "a user name of letters, digits, '.', '_' or '-'") { user in
            !user.isEmpty && user.count <= 64 && user.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || ".-_".contains($0)) }
        },
        .boolean("onvif.discovery", \.onvif.discovery),
    ]

    public static func named(_ name: String) -> ConfigKey? {
        all.first { $0.name == name }
    }
}
