/// The events the node raises, each an ONVIF property: a state a subscriber is told at once
/// (`Initialized`) and again whenever it flips (`Changed`). The topics are the ones the Core
/// spec and its clients name (Home Assistant parses motion, the recording job and storage
/// failure), and one of the node's own for detection falling behind.
enum EventTopic: String, CaseIterable, Sendable {
    case motion = "tns1:RuleEngine/CellMotionDetector/Motion"
    case recordingJob = "tns1:RecordingConfig/JobState"
    case storageFailure = "tns1:Device/HardwareFailure/StorageFailure"
    case signalLoss = "tns1:VideoSource/SignalLoss"
    case detectionBehind = "tnsasp:Privacy/DetectionBehind"

    /// The node's own topic namespace (prefix `tnsasp`).
    static let ownNamespace = "urn:allspark-node:onvif:topics"
    static let recordingJobToken = "recording_job"
    static let recordingToken = "recording"
    static let storageToken = "store"

    struct Item: Sendable, Equatable {
        let name: String
        /// Its XML schema type, as GetEventProperties describes it.
        let type: String
        let value: String
    }

    /// Where the event comes from.
    var sourceItems: [Item] {
        switch self {
        case .motion:
            [
                Item(name: "VideoSourceConfigurationToken", type: "tt:ReferenceToken", value: MediaProfile.sourceConfigurationToken),
                Item(name: "VideoAnalyticsConfigurationToken", type: "tt:ReferenceToken", value: "change_detection"),
                Item(name: "Rule", type: "xs:string", value: "MotionRule"),
            ]
        case .recordingJob: [Item(name: "RecordingJobToken", type: "tt:RecordingJobReference", value: Self.recordingJobToken)]
        case .storageFailure: [Item(name: "Token", type: "tt:ReferenceToken", value: Self.storageToken)]
        case .signalLoss, .detectionBehind: [Item(name: "Source", type: "tt:ReferenceToken", value: MediaProfile.sourceToken)]
        }
    }

    /// The data item's name and type; its value is `value(_:)` of the state.
    var dataItem: (name: String, type: String) {
        switch self {
        case .motion: ("IsMotion", "xs:boolean")
        case .recordingJob: ("State", "tt:RecordingJobState")
        case .storageFailure: ("Failed", "xs:boolean")
        case .signalLoss, .detectionBehind: ("State", "xs:boolean")
        }
    }

    func value(_ on: Bool) -> String {
        switch self {
        case .recordingJob: on ? "Active" : "Idle"
        default: on ? "true" : "false"
        }
    }

    /// The topic's path, without prefixes (`RuleEngine/CellMotionDetector/Motion`).
    var path: [String] {
        rawValue.split(separator: "/").map { part in
            String(part.split(separator: ":").last ?? part)
        }
    }

    var prefix: String { String(rawValue.prefix { $0 != ":" }) }
}
