/// Profile G's recording service (ver10 recording wsdl) at `/onvif/recording_service`: the
/// node's one recording, its video track and the one job that feeds it from the camera.
/// The node always records (`DynamicRecordings="false"`): what creates, deletes or
/// reconfigures recordings, tracks or jobs answers `ter:ActionNotSupported`; the store's
/// size and age are set through the node's own config.
struct RecordingService: ONVIFService {
    let facts: RecordingFacts

    static let preAuthOperations: Set<String> = ["GetServiceCapabilities"]

    /// The encoder's rate bounds what a recording takes in (kbit/s), with room above the
    /// configured rate for a busy picture.
    static func capabilities(video: ONVIFVideoSettings) -> String {
        let rate = video.bitrateKbps * 2
        return "<trc:Capabilities DynamicRecordings=\"false\" DynamicTracks=\"false\" Encoding=\"H264\" MaxRate=\"\(rate)\" "
            + "MaxTotalRate=\"\(rate)\" MaxRecordings=\"1\" MaxRecordingJobs=\"1\" Options=\"false\" MetadataRecording=\"false\"/>"
    }

    func respond(to request: SOAPRequest, at endpoint: ONVIFEndpoint) throws(SOAPFault) -> String {
        let operation = request.operation
        let name = request.operationName
        switch name {
        case "GetServiceCapabilities":
            return "<trc:GetServiceCapabilitiesResponse>\(Self.capabilities(video: facts.video))</trc:GetServiceCapabilitiesResponse>"
        case "GetRecordings":
            return "<trc:GetRecordingsResponse><trc:RecordingItem>" + XMLText.element("tt:RecordingToken", RecordingFacts.recordingToken)
                + configuration(element: "tt:Configuration", at: endpoint)
                + "<tt:Tracks><tt:Track>" + XMLText.element("tt:TrackToken", RecordingFacts.trackToken)
                + trackConfiguration(element: "tt:Configuration") + "</tt:Track></tt:Tracks></trc:RecordingItem></trc:GetRecordingsResponse>"
        case "GetRecordingConfiguration":
            try RecordingFacts.requireRecording(operation.child("RecordingToken")?.trimmedText)
            return "<trc:GetRecordingConfigurationResponse>" + configuration(element: "trc:RecordingConfiguration", at: endpoint)
                + "</trc:GetRecordingConfigurationResponse>"
        case "GetTrackConfiguration":
            try RecordingFacts.requireRecording(operation.child("RecordingToken")?.trimmedText)
            guard operation.child("TrackToken")?.trimmedText == RecordingFacts.trackToken else {
                throw SOAPFault.invalidArgument("ter:NoTrack", "the recording has one track, \(RecordingFacts.trackToken)")
            }
            return "<trc:GetTrackConfigurationResponse>" + trackConfiguration(element: "trc:TrackConfiguration") + "</trc:GetTrackConfigurationResponse>"
        case "GetRecordingJobs":
            return "<trc:GetRecordingJobsResponse><trc:JobItem>" + XMLText.element("tt:JobToken", RecordingFacts.jobToken)
                + jobConfiguration(element: "tt:JobConfiguration") + "</trc:JobItem></trc:GetRecordingJobsResponse>"
        case "GetRecordingJobConfiguration":
            try Self.requireJob(operation)
            return "<trc:GetRecordingJobConfigurationResponse>" + jobConfiguration(element: "trc:JobConfiguration")
                + "</trc:GetRecordingJobConfigurationResponse>"
        case "GetRecordingJobState":
            try Self.requireJob(operation)
            return "<trc:GetRecordingJobStateResponse><trc:State>" + XMLText.element("tt:RecordingToken", RecordingFacts.recordingToken)
                + XMLText.element("tt:State", jobState) + "<tt:Sources>" + sourceToken
                + XMLText.element("tt:State", jobState) + "<tt:Tracks><tt:Track>" + XMLText.element("tt:SourceTag", RecordingFacts.trackToken)
                + XMLText.element("tt:Destination", RecordingFacts.trackToken) + XMLText.element("tt:State", jobState)
                + "</tt:Track></tt:Tracks></tt:Sources></trc:State></trc:GetRecordingJobStateResponse>"
        default:
            throw SOAPFault.actionNotSupported(name)
        }
    }

    private var jobState: String { facts.timeline.recording ? "Active" : "Idle" }

    private var sourceToken: String {
        "<tt:SourceToken Type=\"http://www.onvif.org/ver10/schema/Profile\">" + XMLText.element("tt:Token", MediaProfile.profileToken) + "</tt:SourceToken>"
    }

    private func configuration(element: String, at endpoint: ONVIFEndpoint) -> String {
        "<\(element)>" + facts.source(at: endpoint) + XMLText.element("tt:Content", facts.content)
            + XMLText.element("tt:MaximumRetentionTime", XMLDuration.text(ms: facts.maximumRetentionMs)) + "</\(element)>"
    }

    private func trackConfiguration(element: String) -> String {
        "<\(element)><tt:TrackType>Video</tt:TrackType>" + XMLText.element("tt:Description", facts.trackDescription) + "</\(element)>"
    }

    private func jobConfiguration(element: String) -> String {
        "<\(element)>" + XMLText.element("tt:RecordingToken", RecordingFacts.recordingToken) + "<tt:Mode>Active</tt:Mode><tt:Priority>1</tt:Priority>"
            + "<tt:Source>" + sourceToken + "<tt:Tracks>" + XMLText.element("tt:SourceTag", RecordingFacts.trackToken)
            + XMLText.element("tt:Destination", RecordingFacts.trackToken) + "</tt:Tracks></tt:Source></\(element)>"
    }

    private static func requireJob(_ operation: XMLNode) throws(SOAPFault) {
        guard operation.child("JobToken")?.trimmedText == RecordingFacts.jobToken else {
            throw SOAPFault.invalidArgument("ter:NoRecordingJob", "the node has one recording job, \(RecordingFacts.jobToken)")
        }
    }
}
