/// What Profile G's recording and search services say about the node's one recording,
/// read when a request comes: the ring store's footage, the recorder's state, the stream.
/// One recording per node (one node per camera), one video track.
struct RecordingFacts: Sendable {
    static let recordingToken = EventTopic.recordingToken
    static let trackToken = "video"
    static let jobToken = EventTopic.recordingJobToken

    let timeline: RecordingTimeline
    let video: ONVIFVideoSettings
    /// The camera's name (`uplink.name`, else the host's) and the store's lasting id.
    let name: String
    let identity: String
    /// The store's age limit (0: none, only its size bounds it).
    let maximumRetentionMs: Int64
    let nowMs: Int64

    var status: String { timeline.recording ? "Recording" : "Stopped" }

    /// A request's RecordingToken must name the one recording.
    static func requireRecording(_ token: String?) throws(SOAPFault) {
        guard token == recordingToken else {
            throw SOAPFault.invalidArgument("ter:NoRecording", "no recording \(token ?? "(none)"); the node has one, \(recordingToken)")
        }
    }

    /// `tt:RecordingInformation`, as GetRecordingInformation and FindRecordings' results give it.
    func information(element: String, at endpoint: ONVIFEndpoint) -> String {
        let from = timeline.dataFromMs ?? nowMs
        let until = timeline.dataUntilMs ?? nowMs
        return "<\(element)>" + XMLText.element("tt:RecordingToken", Self.recordingToken) + source(at: endpoint)
            + XMLText.element("tt:EarliestRecording", WallClock.iso8601(ms: from))
            + XMLText.element("tt:LatestRecording", WallClock.iso8601(ms: until))
            + XMLText.element("tt:Content", content)
            + "<tt:Track>" + trackInformation(fromMs: from, untilMs: until) + "</tt:Track>"
            + XMLText.element("tt:RecordingStatus", status) + "</\(element)>"
    }

    func trackInformation(fromMs: Int64, untilMs: Int64) -> String {
        XMLText.element("tt:TrackToken", Self.trackToken) + "<tt:TrackType>Video</tt:TrackType>"
            + XMLText.element("tt:Description", trackDescription)
            + XMLText.element("tt:DataFrom", WallClock.iso8601(ms: fromMs)) + XMLText.element("tt:DataTo", WallClock.iso8601(ms: untilMs))
    }

    /// `tt:Source` of a recording: the camera it records.
    func source(at endpoint: ONVIFEndpoint) -> String {
        "<tt:Source>" + XMLText.element("tt:SourceId", "urn:uuid:\(identity)") + XMLText.element("tt:Name", name)
            + "<tt:Location></tt:Location>" + XMLText.element("tt:Description", "the node's camera")
            + XMLText.element("tt:Address", endpoint.deviceService) + "</tt:Source>"
    }

    var content: String { "The ring store's footage, faces masked before encoding" }
    var trackDescription: String { "H.264, \(video.width)x\(video.height)" }

    /// `tt:VideoAttributes` of the track (the stream as the recorder makes it now).
    var videoAttributes: String {
        "<tt:VideoAttributes>" + XMLText.element("tt:Bitrate", String(video.bitrateKbps))
            + XMLText.element("tt:Width", String(video.width)) + XMLText.element("tt:Height", String(video.height))
            + "<tt:Encoding>H264</tt:Encoding>" + XMLText.element("tt:Framerate", String(video.fps)) + "</tt:VideoAttributes>"
    }
}

extension RecordingFacts {
    /// From the running node's store, recorder and config.
    init(services: NodeServices, video: ONVIFVideoSettings, nowMs: Int64 = WallClock.nowMs()) {
        let status = services.recorder.status
        self.init(
            timeline: RecordingTimeline(chunks: services.store.allChunks, recording: status.recording && !status.finished),
            video: video, name: services.identity.name, identity: services.identity.id,
            maximumRetentionMs: services.store.retention.maxAgeMs, nowMs: nowMs)
    }
}
