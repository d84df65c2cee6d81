/// The media service's one profile and its parts, as XML: the camera (video source), its
/// configuration, and the H.264 encoder configuration with the stream's real size, frame
/// rate, bitrate and GOP.
enum MediaProfile {
    static let profileToken = "main"
    static let sourceToken = "video_source"
    static let sourceConfigurationToken = "video_source_config"
    static let encoderConfigurationToken = "video_encoder_config"
    /// What libx264 makes of 4:2:0 8-bit video with the node's presets.
    static let h264Profile = "High"

    static func requireProfile(_ token: String?) throws(SOAPFault) {
        try require(token, is: profileToken, "ter:NoProfile")
    }

    static func require(_ token: String?, is expected: String, _ subcode: String) throws(SOAPFault) {
        guard token == expected else {
            throw SOAPFault.invalidArgument(subcode, "no such token: \(token ?? "(none)"); the device has \(expected)")
        }
    }

    static func profile(_ video: ONVIFVideoSettings, element: String) -> String {
        "<\(element) token=\"\(profileToken)\" fixed=\"true\"><tt:Name>\(profileToken)</tt:Name>"
            + sourceConfiguration(video, element: "tt:VideoSourceConfiguration")
            + encoderConfiguration(video, element: "tt:VideoEncoderConfiguration") + "</\(element)>"
    }

    static func videoSource(_ video: ONVIFVideoSettings) -> String {
        "<trt:VideoSources token=\"\(sourceToken)\"><tt:Framerate>\(video.fps)</tt:Framerate>"
            + resolution(video) + "</trt:VideoSources>"
    }

    static func sourceConfiguration(_ video: ONVIFVideoSettings, element: String) -> String {
        "<\(element) token=\"\(sourceConfigurationToken)\"><tt:Name>\(sourceConfigurationToken)</tt:Name><tt:UseCount>1</tt:UseCount>"
            + "<tt:SourceToken>\(sourceToken)</tt:SourceToken><tt:Bounds x=\"0\" y=\"0\" width=\"\(video.width)\" height=\"\(video.height)\"/></\(element)>"
    }

    static func encoderConfiguration(_ video: ONVIFVideoSettings, element: String) -> String {
        "<\(element) token=\"\(encoderConfigurationToken)\"><tt:Name>\(encoderConfigurationToken)</tt:Name><tt:UseCount>1</tt:UseCount>"
            + "<tt:Encoding>H264</tt:Encoding>" + resolution(video) + "<tt:Quality>5</tt:Quality>"
            + "<tt:RateControl><tt:FrameRateLimit>\(video.frameRateLimit)</tt:FrameRateLimit><tt:EncodingInterval>1</tt:EncodingInterval>"
            + "<tt:BitrateLimit>\(video.bitrateKbps)</tt:BitrateLimit></tt:RateControl>"
            + "<tt:H264><tt:GovLength>\(video.gopLength)</tt:GovLength><tt:H264Profile>\(h264Profile)</tt:H264Profile></tt:H264>"
            + "<tt:Multicast><tt:Address><tt:Type>IPv4</tt:Type><tt:IPv4Address>0.0.0.0</tt:IPv4Address></tt:Address>"
            + "<tt:Port>0</tt:Port><tt:TTL>1</tt:TTL><tt:AutoStart>false</tt:AutoStart></tt:Multicast>"
            + "<tt:SessionTimeout>PT60S</tt:SessionTimeout></\(element)>"
    }

    static func encoderOptions(_ video: ONVIFVideoSettings) -> String {
        "<trt:Options><tt:QualityRange><tt:Min>5</tt:Min><tt:Max>5</tt:Max></tt:QualityRange><tt:H264>"
            + "<tt:ResolutionsAvailable><tt:Width>\(video.width)</tt:Width><tt:Height>\(video.height)</tt:Height></tt:ResolutionsAvailable>"
            + range("tt:GovLengthRange", video.gopLength) + range("tt:FrameRateRange", video.frameRateLimit)
            + range("tt:EncodingIntervalRange", 1) + "<tt:H264ProfilesSupported>\(h264Profile)</tt:H264ProfilesSupported>"
            + "</tt:H264></trt:Options>"
    }

    static func sourceOptions(_ video: ONVIFVideoSettings, element: String = "trt:Options") -> String {
        "<\(element)><tt:BoundsRange>" + range("tt:XRange", 0) + range("tt:YRange", 0) + range("tt:WidthRange", video.width)
            + range("tt:HeightRange", video.height) + "</tt:BoundsRange>"
            + "<tt:VideoSourceTokensAvailable>\(sourceToken)</tt:VideoSourceTokensAvailable></\(element)>"
    }

    static func resolution(_ video: ONVIFVideoSettings) -> String {
        "<tt:Resolution><tt:Width>\(video.width)</tt:Width><tt:Height>\(video.height)</tt:Height></tt:Resolution>"
    }

    static func range(_ element: String, _ value: Int) -> String {
        "<\(element)><tt:Min>\(value)</tt:Min><tt:Max>\(value)</tt:Max></\(element)>"
    }
}
