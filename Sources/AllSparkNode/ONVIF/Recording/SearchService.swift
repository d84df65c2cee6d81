/// Profile G's search service (ver10 search wsdl) at `/onvif/search_service`: the node's one
/// recording, its span and gaps. FindRecordings and FindEvents start a search whose
/// results come in batches; a gap in the footage is a `tns1:RecordingHistory/Track/State`
/// event with `IsDataPresent` false where footage ends and true where it begins again.
/// Metadata and PTZ searches are not offered (`MetadataSearch="false"`).
struct SearchService: ONVIFService {
    let facts: RecordingFacts
    let searches: SearchSessions

    static let preAuthOperations: Set<String> = ["GetServiceCapabilities"]
    static let capabilities = "<tse:Capabilities MetadataSearch=\"false\" GeneralStartEvents=\"false\"/>"
    static let historyTopic = "tns1:RecordingHistory/Track/State"
    /// Results a GetRecordingSearchResults or GetEventSearchResults call hands out at most.
    static let maximumBatch = 100

    func respond(to request: SOAPRequest, at endpoint: ONVIFEndpoint) throws(SOAPFault) -> String {
        let operation = request.operation
        let name = request.operationName
        switch name {
        case "GetServiceCapabilities":
            return "<tse:GetServiceCapabilitiesResponse>\(Self.capabilities)</tse:GetServiceCapabilitiesResponse>"
        case "GetRecordingSummary":
            return "<tse:GetRecordingSummaryResponse><tse:Summary>"
                + XMLText.element("tt:DataFrom", WallClock.iso8601(ms: facts.timeline.dataFromMs ?? facts.nowMs))
                + XMLText.element("tt:DataUntil", WallClock.iso8601(ms: facts.timeline.dataUntilMs ?? facts.nowMs))
                + "<tt:NumberRecordings>1</tt:NumberRecordings></tse:Summary></tse:GetRecordingSummaryResponse>"
        case "GetRecordingInformation":
            try RecordingFacts.requireRecording(operation.child("RecordingToken")?.trimmedText)
            return "<tse:GetRecordingInformationResponse>" + facts.information(element: "tse:RecordingInformation", at: endpoint)
                + "</tse:GetRecordingInformationResponse>"
        case "GetMediaAttributes":
            return try mediaAttributes(operation)
        case "FindRecordings":
            let results = Self.scopeIncludesRecording(operation.child("Scope")) ? [facts.information(element: "tt:RecordingInformation", at: endpoint)] : []
            return try start(.recordings, results: limited(results, operation), operation, endPointMs: facts.nowMs, response: "FindRecordingsResponse")
        case "GetRecordingSearchResults":
            return try results(operation, kind: .recordings, response: "GetRecordingSearchResultsResponse")
        case "FindEvents":
            return try findEvents(operation)
        case "GetEventSearchResults":
            return try results(operation, kind: .events, response: "GetEventSearchResultsResponse")
        case "GetSearchState":
            let state = try Self.refusing { () throws(SearchSessions.Refusal) in try searches.state(Self.token(operation), nowMs: facts.nowMs) }
            return "<tse:GetSearchStateResponse>" + XMLText.element("tse:State", state) + "</tse:GetSearchStateResponse>"
        case "EndSearch":
            let endMs = try Self.refusing { () throws(SearchSessions.Refusal) in try searches.end(Self.token(operation), nowMs: facts.nowMs) }
            return "<tse:EndSearchResponse>" + XMLText.element("tse:Endpoint", WallClock.iso8601(ms: endMs)) + "</tse:EndSearchResponse>"
        default:
            throw SOAPFault.actionNotSupported(name)
        }
    }

    private func mediaAttributes(_ operation: XMLNode) throws(SOAPFault) -> String {
        let tokens = operation.children.filter { $0.name == "RecordingTokens" }.map(\.trimmedText)
        for token in tokens { try RecordingFacts.requireRecording(token) }
        guard let timeText = operation.child("Time")?.trimmedText, let atMs = UsernameTokenCheck.parseTime(timeText) else {
            throw SOAPFault.invalidArgument("ter:InvalidArgVal", "Time is missing or not an xs:dateTime")
        }
        var body = "<tse:GetMediaAttributesResponse>"
        if !tokens.isEmpty, let span = facts.timeline.span(containing: atMs) {
            body += "<tse:MediaAttributes>" + XMLText.element("tt:RecordingToken", RecordingFacts.recordingToken)
                + "<tt:TrackAttributes><tt:TrackInformation>" + facts.trackInformation(fromMs: span.startMs, untilMs: span.endMs)
                + "</tt:TrackInformation>" + facts.videoAttributes + "</tt:TrackAttributes>"
                + XMLText.element("tt:From", WallClock.iso8601(ms: span.startMs)) + XMLText.element("tt:Until", WallClock.iso8601(ms: span.endMs))
                + "</tse:MediaAttributes>"
        }
        return body + "</tse:GetMediaAttributesResponse>"
    }

    /// FindEvents: the footage's changes between StartPoint and EndPoint (now when absent),
    /// newest first when EndPoint is before StartPoint, led by the state at StartPoint when
    /// IncludeStartState is true.
    private func findEvents(_ operation: XMLNode) throws(SOAPFault) -> String {
        guard let startText = operation.child("StartPoint")?.trimmedText, let startMs = UsernameTokenCheck.parseTime(startText) else {
            throw SOAPFault.invalidArgument("ter:InvalidArgVal", "StartPoint is missing or not an xs:dateTime")
        }
        var endMs = facts.nowMs
        if let endText = operation.child("EndPoint")?.trimmedText, !endText.isEmpty {
            guard let given = UsernameTokenCheck.parseTime(endText) else {
                throw SOAPFault.invalidArgument("ter:InvalidArgVal", "EndPoint is not an xs:dateTime")
            }
            endMs = given
        }
        let backwards = endMs < startMs
        var results: [String] = []
        if Self.scopeIncludesRecording(operation.child("Scope")), Self.filterIncludesHistory(operation.child("SearchFilter")) {
            if operation.child("IncludeStartState")?.trimmedText == "true" {
                results.append(Self.result(RecordingTimeline.Change(utcMs: startMs, dataPresent: facts.timeline.dataPresent(at: startMs)), startState: true))
            }
            var changes = facts.timeline.changes(fromMs: min(startMs, endMs), toMs: max(startMs, endMs))
            if backwards { changes.reverse() }
            results += changes.map { Self.result($0, startState: false) }
        }
        return try start(.events, results: limited(results, operation), operation, endPointMs: endMs, response: "FindEventsResponse")
    }

    /// A FindEvents result: the track's state as a property event.
    static func result(_ change: RecordingTimeline.Change, startState: Bool) -> String {
        let time = WallClock.iso8601(ms: change.utcMs)
        return "<tt:Result>" + XMLText.element("tt:RecordingToken", RecordingFacts.recordingToken)
            + XMLText.element("tt:TrackToken", RecordingFacts.trackToken) + XMLText.element("tt:Time", time)
            + "<tt:Event><wsnt:Topic Dialect=\"\(EventXML.concreteSetDialect)\">\(historyTopic)</wsnt:Topic>"
            + "<wsnt:Message><tt:Message UtcTime=\"\(time)\" PropertyOperation=\"\(startState ? "Initialized" : "Changed")\">"
            + "<tt:Source>" + EventXML.simpleItem("RecordingToken", RecordingFacts.recordingToken) + EventXML.simpleItem("Track", RecordingFacts.trackToken)
            + "</tt:Source><tt:Data>" + EventXML.simpleItem("IsDataPresent", change.dataPresent ? "true" : "false")
            + "</tt:Data></tt:Message></wsnt:Message></tt:Event>"
            + "<tt:StartStateEvent>\(startState)</tt:StartStateEvent></tt:Result>"
    }

    private func start(_ kind: SearchSessions.Kind, results: [String], _ operation: XMLNode, endPointMs: Int64, response: String) throws(SOAPFault) -> String {
        guard let keepAliveText = operation.child("KeepAliveTime")?.trimmedText, let keepAliveMs = XMLDuration.milliseconds(keepAliveText) else {
            throw SOAPFault.invalidArgument("ter:InvalidArgVal", "KeepAliveTime is missing or not an xs:duration")
        }
        let token = try Self.refusing { () throws(SearchSessions.Refusal) in
            try searches.start(kind, results: results, keepAliveMs: keepAliveMs, endPointMs: endPointMs, nowMs: facts.nowMs)
        }
        return "<tse:\(response)>" + XMLText.element("tse:SearchToken", token) + "</tse:\(response)>"
    }

    private func results(_ operation: XMLNode, kind: SearchSessions.Kind, response: String) throws(SOAPFault) -> String {
        let asked = operation.child("MaxResults").flatMap { Int($0.trimmedText) } ?? Self.maximumBatch
        let batch = try Self.refusing { () throws(SearchSessions.Refusal) in
            try searches.next(Self.token(operation), kind: kind, maximum: min(max(asked, 1), Self.maximumBatch), nowMs: facts.nowMs)
        }
        return "<tse:\(response)><tse:ResultList>" + XMLText.element("tt:SearchState", batch.state)
            + batch.results.joined() + "</tse:ResultList></tse:\(response)>"
    }

    /// MaxMatches, when given, bounds a search's results.
    private func limited(_ results: [String], _ operation: XMLNode) -> [String] {
        guard let text = operation.child("MaxMatches")?.trimmedText, let maximum = Int(text), maximum >= 0 else { return results }
        return Array(results.prefix(maximum))
    }

    /// A search's Scope takes in the recording unless it names recordings or sources and
    /// not this one's.
    static func scopeIncludesRecording(_ scope: XMLNode?) -> Bool {
        guard let scope else { return true }
        let recordings = scope.children.filter { $0.name == "IncludedRecordings" }.map(\.trimmedText)
        if !recordings.isEmpty, !recordings.contains(RecordingFacts.recordingToken) { return false }
        let sources = scope.children.filter { $0.name == "IncludedSources" }.compactMap { $0.child("Token")?.trimmedText }
        if !sources.isEmpty, !sources.contains(MediaProfile.sourceToken) { return false }
        return true
    }

    /// FindEvents' SearchFilter: the history topic matches no filter, or a topic
    /// expression that names RecordingHistory or a wildcard over all.
    static func filterIncludesHistory(_ filter: XMLNode?) -> Bool {
        guard let expression = filter?.descendant("TopicExpression")?.trimmedText, !expression.isEmpty else { return true }
        return expression.contains("RecordingHistory") || expression == "//." || expression == "tns1://."
    }

    private static func token(_ operation: XMLNode) -> String {
        operation.child("SearchToken")?.trimmedText ?? ""
    }

    private static func refusing<T>(_ body: () throws(SearchSessions.Refusal) -> T) throws(SOAPFault) -> T {
        do {
            return try body()
        } catch {
            switch error {
            case .tooMany:
                throw SOAPFault(
                    code: .receiver, subcode: "ter:Action", detailSubcode: "ter:ResourceProblem",
                    reason: "at most \(SearchSessions.maximumCount) searches at once; end one first")
            case .unknown:
                throw SOAPFault.invalidArgument("ter:InvalidToken", "no such search (ended, or its KeepAliveTime passed)")
            case .otherKind:
                throw SOAPFault.invalidArgument("ter:InvalidToken", "that search token is for the other kind of results")
            }
        }
    }
}
