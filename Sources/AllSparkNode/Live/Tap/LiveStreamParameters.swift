/// What a decoder needs before the first packet of one encoder session: the picture size and
/// the encoder's SPS/PPS (libx264's extradata, Annex B). A new encoder (new size or
/// settings, a source that came back) is a new session with a new `session` number.
struct LiveStreamParameters: Sendable, Equatable {
    let session: Int
    let width: Int
    let height: Int
    let fps: Double
    let extradata: [UInt8]
}
