import Crypto
import Foundation

/// What the ONVIF services say about this node, read when a request comes: who it is, what
/// it streams, and whether its clock is synchronised.
struct ONVIFDeviceFacts: Sendable {
    static let manufacturer = "AllSpark"
    static let model = "AllSpark Node"

    /// The store's lasting identity (a UUID): SerialNumber, and the discovery endpoint.
    let identity: NodeIdentity
    let firmwareVersion: String
    let video: ONVIFVideoSettings
    let clockSynchronized: Bool
    let hostname: String
    /// The ONVIF user name (`onvif.user`).
    let user: String
    /// The store is replayed over RTSP (RTSP is on): Profile G is whole.
    var replays = true

    var endpointReference: String { "urn:uuid:\(identity.id)" }
    var hardwareId: String {
        var name = utsname()
        uname(&name)
        return withUnsafeBytes(of: &name.machine) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
    }

    /// The HwAddress GetNetworkInterfaces gives for interface `name`: a locally
    /// administered unicast address made from the store's identity and the name, not the
    /// NIC's own. Home Assistant and VMSs like it key a camera by the first interface's
    /// HwAddress, and the instances of one box (one per camera) share its NICs: with the
    /// NIC's address they would show as one camera. Stable for the store, as a MAC is.
    func hardwareAddress(forInterface name: String) -> String {
        var bytes = Array(SHA256.hash(data: Data("\(identity.id)/\(name)".utf8)).prefix(6))
        bytes[0] = (bytes[0] & 0xFC) | 0x02
        return bytes.map { String(format: "%02x", $0) }.joined(separator: ":")
    }

    /// The scopes the node announces and answers GetScopes with.
    var scopes: [String] { Self.scopes(name: identity.name, replays: replays) }

    /// Profile G (search, recording and replay) when the node replays its store over RTSP.
    static func scopes(name: String, replays: Bool = true) -> [String] {
        [
            "onvif://www.onvif.org/type/video_encoder",
            "onvif://www.onvif.org/Profile/Streaming",
            "onvif://www.onvif.org/Profile/S",
        ] + (replays ? ["onvif://www.onvif.org/Profile/G"] : []) + [
            "onvif://www.onvif.org/name/\(scopeText(name))",
            "onvif://www.onvif.org/hardware/\(scopeText(model))",
        ]
    }

    /// A scope's last segment: URL-safe (spaces and other characters percent-escaped).
    static func scopeText(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "-._~"))) ?? "node"
    }

    static func hostName() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count) == 0 else { return "allspark-node" }
        return String(nulTerminated: buffer)
    }
}

/// The one video stream, as the recorder makes it: H.264 at the real size, rate, bitrate and GOP.
struct ONVIFVideoSettings: Sendable, Equatable {
    var width: Int
    var height: Int
    var fps: Double
    /// kbit/s: the configured rate, or (CRF) an estimate from the picture size.
    var bitrateKbps: Int
    /// Frames from one keyframe to the next.
    var gopLength: Int
    /// The stream carries ONVIF Media Signing's SEIs (the recorder signs what it encodes,
    /// and the live streams are those frames).
    var signed = false

    var frameRateLimit: Int { max(1, Int(fps.rounded())) }
}

extension ONVIFVideoSettings {
    /// From the config, with the size of the latest frame where one was made (width 0 in
    /// the config means the source's own size).
    init(config: NodeConfig, frameWidth: Int?, frameHeight: Int?) {
        let width = frameWidth.flatMap { $0 > 0 ? $0 : nil } ?? (config.width > 0 ? config.width : 1280)
        let height = frameHeight.flatMap { $0 > 0 ? $0 : nil } ?? (config.height > 0 ? config.height : 720)
        let bitrate = config.encoder.bitrateKbps > 0 ? config.encoder.bitrateKbps : max(256, width * height * 3 / 1000)
        let gop = max(1, Int((Double(config.encoder.keyframeIntervalMs) * config.fps / 1000).rounded()))
        self.init(width: width, height: height, fps: config.fps, bitrateKbps: bitrate, gopLength: gop)
    }
}
