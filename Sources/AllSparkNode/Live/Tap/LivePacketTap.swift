/// Where the recording loop hands its encoded packets to live viewers: the one seam between
/// recording and live video. Both calls come from the recording thread and must return at
/// once without allocating per packet.
protocol LivePacketTap: AnyObject, Sendable {
    /// A new encoder session starts; its packets follow.
    func beginSession(width: Int, height: Int, fps: Double, extradata: UnsafeBufferPointer<UInt8>)
    /// One encoded access unit, as it goes to the chunk (masked: it left the privacy pass).
    func publish(_ bytes: UnsafeRawBufferPointer, captureMs: Int64, durationMs: Int64, isKeyframe: Bool)
}
