/// The one profile in Media2's XML: `tr2:MediaProfile` (its configurations only of the types
/// asked for), `tt:VideoEncoder2Configuration` and its options. The tokens and the video
/// source configuration are the ver10 service's (`MediaProfile`): one camera, two views.
enum Media2Configurations {
    /// Configuration types (tr2:ConfigurationEnumeration) the profile has.
    static let videoSource = "VideoSource"
    static let videoEncoder = "VideoEncoder"

    /// `types` empty: name and token only, as Media2 says; `All`: every configuration.
    static func profile(_ video: ONVIFVideoSettings, types: Set<String>) -> String {
        let all = types.contains("All")
        var configurations = ""
        if all || types.contains(videoSource) { configurations += MediaProfile.sourceConfiguration(video, element: "tr2:VideoSource") }
        if all || types.contains(videoEncoder) { configurations += encoder(video, element: "tr2:VideoEncoder") }
        return "<tr2:Profiles token=\"\(MediaProfile.profileToken)\" fixed=\"true\"><tr2:Name>\(MediaProfile.profileToken)</tr2:Name>"
            + (configurations.isEmpty ? "" : "<tr2:Configurations>\(configurations)</tr2:Configurations>") + "</tr2:Profiles>"
    }

    /// Encoding is the MIME subtype; the rate is a limit (CRF or average bitrate), not CBR.
    /// `Signed`: ONVIF Media Signing, as the recorder signs.
    static func encoder(_ video: ONVIFVideoSettings, element: String) -> String {
        "<\(element) token=\"\(MediaProfile.encoderConfigurationToken)\" GovLength=\"\(video.gopLength)\" Profile=\"\(MediaProfile.h264Profile)\""
            + " Signed=\"\(video.signed)\">"
            + "<tt:Name>\(MediaProfile.encoderConfigurationToken)</tt:Name><tt:UseCount>1</tt:UseCount>"
            + "<tt:Encoding>H264</tt:Encoding>" + MediaProfile.resolution(video)
            + "<tt:RateControl ConstantBitRate=\"false\"><tt:FrameRateLimit>\(frameRate(video.fps))</tt:FrameRateLimit>"
            + "<tt:BitrateLimit>\(video.bitrateKbps)</tt:BitrateLimit></tt:RateControl>"
            + "<tt:Quality>5</tt:Quality></\(element)>"
    }

    /// What the one encoder configuration can be: exactly what it is.
    static func encoderOptions(_ video: ONVIFVideoSettings) -> String {
        "<tr2:Options GovLengthRange=\"\(video.gopLength) \(video.gopLength)\" FrameRatesSupported=\"\(frameRate(video.fps))\""
            + " ProfilesSupported=\"\(MediaProfile.h264Profile)\" ConstantBitRateSupported=\"false\" GuaranteedFrameRateSupported=\"false\""
            + " SigningSupported=\"\(video.signed)\">"
            + "<tt:Encoding>H264</tt:Encoding>" + MediaProfile.range("tt:QualityRange", 5)
            + "<tt:ResolutionsAvailable><tt:Width>\(video.width)</tt:Width><tt:Height>\(video.height)</tt:Height></tt:ResolutionsAvailable>"
            + MediaProfile.range("tt:BitrateRange", video.bitrateKbps) + "</tr2:Options>"
    }

    /// One H.264 stream of the one source.
    static let encoderInstances =
        "<tr2:Info><tr2:Codec><tr2:Encoding>H264</tr2:Encoding><tr2:Number>1</tr2:Number></tr2:Codec><tr2:Total>1</tr2:Total></tr2:Info>"

    /// Media2's frame rates are floats: 30, or 29.97 as 29.97.
    static func frameRate(_ fps: Double) -> String {
        fps == fps.rounded() ? String(Int(fps)) : String((fps * 1000).rounded() / 1000)
    }
}
