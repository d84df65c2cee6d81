import Foundation
import Testing
@testable import AllSparkNode

/// Profile G's recording and search services over a ring store's chunks: the recording's
/// span, its gaps as RecordingHistory events, searches handed out in batches and ended.
struct ONVIFRecordingSearchTests {
    static let baseMs: Int64 = 1_796_000_000_000
    static let video = ONVIFVideoSettings(width: 1280, height: 720, fps: 10, bitrateKbps: 2000, gopLength: 20)

    /// 2 s chunks at 10 fps (the next chunk's first frame 100 ms after the last one's last
    /// frame): three back to back, a 30 s gap, then two more.
    static let chunks: [ChunkRecord] = {
        let starts: [Int64] = [0, 2_000, 4_000, 36_000, 38_000]
        return starts.map { offset in
            let start = baseMs + offset
            return ChunkRecord(
                stamp: "\(start / 1000).\(start % 1000)", format: .mp4, startMs: start, endMs: start + 1_900, frameCount: 20,
                chunkBytes: 40_000, timestampsBytes: 400)
        }
    }()

    static func facts(recording: Bool = true, chunks: [ChunkRecord] = chunks) -> RecordingFacts {
        RecordingFacts(
            timeline: RecordingTimeline(chunks: chunks, recording: recording), video: video, name: "cam 1",
            identity: "0a1b2c3d-0000-4000-8000-000000000001", maximumRetentionMs: 3_600_000, nowMs: baseMs + 60_000)
    }

    static func time(_ offsetMs: Int64) -> String { WallClock.iso8601(ms: baseMs + offsetMs) }

    static func search(_ service: SearchService, _ operation: String, _ inner: String = "") throws -> XMLNode {
        try ONVIFServiceTests.answer(service, operation, namespace: SOAPNamespace.search, inner: inner)
    }

    static func texts(_ node: XMLNode, _ name: String) -> [String] {
        var found: [String] = []
        func visit(_ node: XMLNode) {
            if node.name == name { found.append(node.trimmedText) }
            node.children.forEach(visit)
        }
        visit(node)
        return found
    }

    @Test("chunks a frame interval apart are one span; a longer hole is a gap; the running span has no end yet")
    func timeline() {
        let timeline = RecordingTimeline(chunks: Self.chunks.reversed(), recording: true)
        #expect(timeline.spans == [
            .init(startMs: Self.baseMs, endMs: Self.baseMs + 5_900), .init(startMs: Self.baseMs + 36_000, endMs: Self.baseMs + 39_900),
        ])
        #expect(timeline.dataPresent(at: Self.baseMs + 3_000))
        #expect(!timeline.dataPresent(at: Self.baseMs + 20_000))
        #expect(timeline.changes(fromMs: Self.baseMs - 1, toMs: Self.baseMs + 60_000) == [
            .init(utcMs: Self.baseMs, dataPresent: true), .init(utcMs: Self.baseMs + 5_900, dataPresent: false),
            .init(utcMs: Self.baseMs + 36_000, dataPresent: true),
        ])
        let stopped = RecordingTimeline(chunks: Self.chunks, recording: false)
        #expect(stopped.changes(fromMs: Self.baseMs + 10_000, toMs: Self.baseMs + 60_000) == [
            .init(utcMs: Self.baseMs + 36_000, dataPresent: true), .init(utcMs: Self.baseMs + 39_900, dataPresent: false),
        ])
        #expect(RecordingTimeline(chunks: [], recording: true).dataFromMs == nil)
    }

    @Test("the summary, the recording's information and its media attributes cover the store's span")
    func summaryAndInformation() throws {
        let service = SearchService(facts: Self.facts(), searches: SearchSessions())
        let summary = try Self.search(service, "GetRecordingSummary")
        #expect(summary.descendant("DataFrom")?.text == Self.time(0))
        #expect(summary.descendant("DataUntil")?.text == Self.time(39_900))
        #expect(summary.descendant("NumberRecordings")?.text == "1")
        let information = try Self.search(service, "GetRecordingInformation", "<RecordingToken>\(RecordingFacts.recordingToken)</RecordingToken>")
        #expect(information.descendant("RecordingStatus")?.text == "Recording")
        #expect(information.descendant("EarliestRecording")?.text == Self.time(0))
        #expect(information.descendant("TrackType")?.text == "Video")
        #expect(information.descendant("Address")?.text == "http://10.0.0.5:8090/onvif/device_service")
        #expect(throws: SOAPFault.self) { try Self.search(service, "GetRecordingInformation", "<RecordingToken>other</RecordingToken>") }
        let inside = try Self.search(
            service, "GetMediaAttributes", "<RecordingTokens>\(RecordingFacts.recordingToken)</RecordingTokens><Time>\(Self.time(37_000))</Time>")
        #expect(inside.descendant("From")?.text == Self.time(36_000))
        #expect(inside.descendant("Until")?.text == Self.time(39_900))
        #expect(inside.descendant("Encoding")?.text == "H264")
        #expect(inside.descendant("Width")?.text == "1280")
        let inGap = try Self.search(
            service, "GetMediaAttributes", "<RecordingTokens>\(RecordingFacts.recordingToken)</RecordingTokens><Time>\(Self.time(20_000))</Time>")
        #expect(inGap.descendant("MediaAttributes") == nil)
    }

    @Test("FindRecordings finds the one recording, scoped out by another token; results in batches, then EndSearch")
    func findRecordings() throws {
        let searches = SearchSessions()
        let service = SearchService(facts: Self.facts(), searches: searches)
        let started = try Self.search(service, "FindRecordings", "<Scope></Scope><KeepAliveTime>PT10S</KeepAliveTime>")
        let token = try #require(started.descendant("SearchToken")?.text)
        let results = try Self.search(service, "GetRecordingSearchResults", "<SearchToken>\(token)</SearchToken><WaitTime>PT1S</WaitTime>")
        #expect(results.descendant("SearchState")?.text == "Completed")
        #expect(Self.texts(results, "RecordingToken") == [RecordingFacts.recordingToken])
        #expect(try Self.search(service, "GetSearchState", "<SearchToken>\(token)</SearchToken>").descendant("State")?.text == "Completed")
        #expect(try Self.search(service, "EndSearch", "<SearchToken>\(token)</SearchToken>").descendant("Endpoint") != nil)
        #expect(throws: SOAPFault.self) { try Self.search(service, "GetRecordingSearchResults", "<SearchToken>\(token)</SearchToken>") }

        let elsewhere = try Self.search(
            service, "FindRecordings", "<Scope><IncludedRecordings>someone-else</IncludedRecordings></Scope><KeepAliveTime>PT10S</KeepAliveTime>")
        let none = try Self.search(service, "GetRecordingSearchResults", "<SearchToken>\(elsewhere.descendant("SearchToken")?.text ?? "")</SearchToken>")
        #expect(Self.texts(none, "RecordingToken").isEmpty)
        #expect(throws: SOAPFault.self) { try Self.search(service, "FindRecordings", "<Scope></Scope>") }
    }

    @Test("FindEvents gives the gap's edges in the asked direction, led by the start state when asked; MaxResults batches them")
    func findEvents() throws {
        let service = SearchService(facts: Self.facts(recording: false), searches: SearchSessions())
        func events(_ inner: String, batch: Int = 100) throws -> (values: [String], times: [String], states: [String]) {
            let started = try Self.search(service, "FindEvents", inner + "<KeepAliveTime>PT10S</KeepAliveTime>")
            let token = try #require(started.descendant("SearchToken")?.text)
            var values: [String] = []
            var times: [String] = []
            var states: [String] = []
            for _ in 0..<10 {
                let results = try Self.search(service, "GetEventSearchResults", "<SearchToken>\(token)</SearchToken><MaxResults>\(batch)</MaxResults>")
                let state = results.descendant("SearchState")?.text ?? ""
                states.append(state)
                for result in results.descendant("ResultList")?.children.filter({ $0.name == "Result" }) ?? [] {
                    #expect(result.descendant("Topic")?.trimmedText == SearchService.historyTopic)
                    values.append(result.descendant("Data")?.child("SimpleItem")?.attributes["Value"] ?? "")
                    times.append(result.child("Time")?.text ?? "")
                }
                if state == "Completed" { break }
            }
            return (values, times, states)
        }
        let forward = try events("<StartPoint>\(Self.time(-10_000))</StartPoint><EndPoint>\(Self.time(50_000))</EndPoint><Scope></Scope><IncludeStartState>false</IncludeStartState>")
        #expect(forward.values == ["true", "false", "true", "false"])
        #expect(forward.times == [Self.time(0), Self.time(5_900), Self.time(36_000), Self.time(39_900)])
        let backward = try events("<StartPoint>\(Self.time(50_000))</StartPoint><EndPoint>\(Self.time(3_000))</EndPoint><Scope></Scope><IncludeStartState>true</IncludeStartState>")
        // The state at StartPoint (no footage at +50 s) first, then newest first.
        #expect(backward.values == ["false", "false", "true", "false"])
        #expect(backward.times == [Self.time(50_000), Self.time(39_900), Self.time(36_000), Self.time(5_900)])
        let batched = try events("<StartPoint>\(Self.time(-10_000))</StartPoint><Scope></Scope><IncludeStartState>false</IncludeStartState>", batch: 3)
        #expect(batched.values.count == 4 && batched.states == ["Searching", "Completed"])
        let otherTopic = try events(
            "<StartPoint>\(Self.time(-10_000))</StartPoint><Scope></Scope><SearchFilter><TopicExpression>tns1:VideoSource/SignalLoss</TopicExpression></SearchFilter><IncludeStartState>false</IncludeStartState>")
        #expect(otherTopic.values.isEmpty)
        #expect(throws: SOAPFault.self) { try Self.search(service, "FindEvents", "<Scope></Scope><KeepAliveTime>PT10S</KeepAliveTime>") }
    }

    @Test("searches are bounded in number and end when their keep-alive passes without a call")
    func sessionsBounded() throws {
        let searches = SearchSessions()
        let nowMs = Self.baseMs
        var tokens: [String] = []
        for _ in 0..<SearchSessions.maximumCount {
            tokens.append(try searches.start(.events, results: ["<r/>"], keepAliveMs: 5_000, endPointMs: nowMs, nowMs: nowMs))
        }
        #expect(throws: SearchSessions.Refusal.tooMany) { try searches.start(.events, results: [], keepAliveMs: 5_000, endPointMs: nowMs, nowMs: nowMs) }
        // A call keeps the first alive; the rest pass their keep-alive.
        _ = try searches.next(tokens[0], kind: .events, maximum: 1, nowMs: nowMs + 4_000)
        #expect(throws: SearchSessions.Refusal.otherKind) { try searches.next(tokens[0], kind: .recordings, maximum: 1, nowMs: nowMs + 4_000) }
        #expect(try searches.state(tokens[0], nowMs: nowMs + 8_000) == "Completed")
        #expect(throws: SearchSessions.Refusal.unknown) { try searches.state(tokens[1], nowMs: nowMs + 8_000) }
        #expect(searches.count == 1)
    }

    @Test("the recording service: one recording and track, one job active while recording; no creating or deleting")
    func recordingService() throws {
        let service = RecordingService(facts: Self.facts())
        let recordings = try ONVIFServiceTests.answer(service, "GetRecordings", namespace: SOAPNamespace.recording)
        #expect(Self.texts(recordings, "RecordingToken") == [RecordingFacts.recordingToken])
        #expect(recordings.descendant("TrackToken")?.text == RecordingFacts.trackToken)
        #expect(recordings.descendant("MaximumRetentionTime")?.text == "PT3600S")
        let capabilities = try ONVIFServiceTests.answer(service, "GetServiceCapabilities", namespace: SOAPNamespace.recording)
        #expect(capabilities.descendant("Capabilities")?.attributes["DynamicRecordings"] == "false")
        let state = try ONVIFServiceTests.answer(
            service, "GetRecordingJobState", namespace: SOAPNamespace.recording, inner: "<JobToken>\(RecordingFacts.jobToken)</JobToken>")
        #expect(state.descendant("State")?.child("State")?.text == "Active")
        let idle = RecordingService(facts: Self.facts(recording: false))
        let idleState = try ONVIFServiceTests.answer(
            idle, "GetRecordingJobState", namespace: SOAPNamespace.recording, inner: "<JobToken>\(RecordingFacts.jobToken)</JobToken>")
        #expect(idleState.descendant("State")?.child("State")?.text == "Idle")
        for refused in ["CreateRecording", "DeleteRecording", "CreateRecordingJob", "SetRecordingJobMode"] {
            #expect(throws: SOAPFault.actionNotSupported(refused)) { try ONVIFServiceTests.answer(service, refused, namespace: SOAPNamespace.recording) }
        }
    }

    @Test("GetCapabilities and GetServices name the recording and search services")
    func advertised() throws {
        let device = DeviceService(facts: ONVIFServiceTests.facts, interfaces: { [] })
        let capabilities = try ONVIFServiceTests.answer(device, "GetCapabilities", namespace: SOAPNamespace.device)
        #expect(capabilities.descendant("Recording")?.child("XAddr")?.text == "http://10.0.0.5:8090/onvif/recording_service")
        #expect(capabilities.descendant("Search")?.child("XAddr")?.text == "http://10.0.0.5:8090/onvif/search_service")
        let services = try ONVIFServiceTests.answer(device, "GetServices", namespace: SOAPNamespace.device, inner: "<IncludeCapability>false</IncludeCapability>")
        let namespaces = Self.texts(services, "Namespace")
        #expect(namespaces.contains(SOAPNamespace.recording) && namespaces.contains(SOAPNamespace.search))
    }
}
