import Foundation
import Testing
@testable import AllSparkNode

/// ONVIF's events: the PullPoint subscriptions' queues, lifetimes and bounds, the long poll,
/// the topic set and filters, durations, and motion from the snapshot copies.
struct ONVIFEventTests {
    static func state(motion: Bool = false, recording: Bool = true, storage: Bool = false) -> NodeEventState {
        NodeEventState(values: [
            .motion: motion, .recordingJob: recording, .storageFailure: storage, .signalLoss: false, .detectionBehind: false,
        ])
    }

    @Test("a subscription hears every property's state first, then only what changed, in order")
    func initializedThenChanged() throws {
        let subscriptions = PullPointSubscriptions()
        subscriptions.publish(Self.state(), nowMs: 1_000)
        let created = try subscriptions.subscribe(lifetimeMs: 60_000, nowMs: 2_000)
        #expect(created.terminationMs == 62_000)
        let first = try subscriptions.pull(created.id, limit: 100, nowMs: 2_100).messages
        #expect(first.count == EventTopic.allCases.count && first.allSatisfy { $0.operation == .initialized })
        #expect(first.first { $0.topic == .recordingJob }?.on == true)
        subscriptions.publish(Self.state(), nowMs: 2_500)
        #expect(try subscriptions.pull(created.id, limit: 100, nowMs: 2_600).messages.isEmpty, "nothing changed")
        subscriptions.publish(Self.state(motion: true), nowMs: 3_000)
        subscriptions.publish(Self.state(motion: false, storage: true), nowMs: 3_500)
        let changes = try subscriptions.pull(created.id, limit: 100, nowMs: 3_600).messages
        #expect(changes == [
            EventMessage(topic: .motion, on: true, utcMs: 3_000, operation: .changed),
            EventMessage(topic: .motion, on: false, utcMs: 3_500, operation: .changed),
            EventMessage(topic: .storageFailure, on: true, utcMs: 3_500, operation: .changed),
        ])
        try subscriptions.synchronize(created.id, nowMs: 4_000)
        let again = try subscriptions.pull(created.id, limit: 2, nowMs: 4_000).messages
        #expect(again.count == 2 && again.allSatisfy { $0.operation == .initialized }, "a MessageLimit of 2 takes 2")
    }

    @Test("subscriptions are bounded in number, end at their termination time unless renewed, and end when asked")
    func lifetimes() throws {
        let subscriptions = PullPointSubscriptions()
        var ids: [String] = []
        for _ in 0..<PullPointSubscriptions.maximumCount {
            ids.append(try subscriptions.subscribe(lifetimeMs: 10_000, nowMs: 0).id)
        }
        #expect(Set(ids).count == ids.count, "ids are not reused")
        #expect(throws: PullPointSubscriptions.Refusal.tooMany) { try subscriptions.subscribe(lifetimeMs: 10_000, nowMs: 1) }
        #expect(try subscriptions.renew(ids[0], lifetimeMs: 20_000, nowMs: 5_000) == 25_000)
        try subscriptions.unsubscribe(ids[1])
        #expect(throws: PullPointSubscriptions.Refusal.unknown) { try subscriptions.pull(ids[1], limit: 1, nowMs: 5_000) }
        subscriptions.expire(nowMs: 10_000)
        #expect(subscriptions.count == 1, "only the renewed one is left")
        #expect(throws: PullPointSubscriptions.Refusal.unknown) { try subscriptions.pull(ids[2], limit: 1, nowMs: 10_000) }
        #expect(try subscriptions.subscribe(lifetimeMs: 99_999_999, nowMs: 0).terminationMs == PullPointSubscriptions.maximumLifetimeMs)
    }

    @Test("a subscription's queue keeps the newest messages when nobody pulls")
    func boundedQueue() throws {
        let subscriptions = PullPointSubscriptions()
        subscriptions.publish(Self.state(), nowMs: 0)
        let id = try subscriptions.subscribe(lifetimeMs: 3_600_000, nowMs: 0).id
        for step in 1...(PullPointSubscriptions.maximumQueued + 50) {
            subscriptions.publish(Self.state(motion: step % 2 == 1), nowMs: Int64(step))
        }
        var pulled: [EventMessage] = []
        while true {
            let batch = try subscriptions.pull(id, limit: 100, nowMs: 10_000).messages
            if batch.isEmpty { break }
            pulled += batch
        }
        #expect(pulled.count == PullPointSubscriptions.maximumQueued)
        #expect(pulled.last?.utcMs == Int64(PullPointSubscriptions.maximumQueued + 50))
    }

    @Test("a topic filter delivers only the topics it names: exact, `*` and `//.`")
    func filters() throws {
        let motionOnly = try #require(TopicFilter(expression: "tns1:RuleEngine/CellMotionDetector/Motion"))
        #expect(motionOnly.matches(.motion) && !motionOnly.matches(.recordingJob))
        let anyDevice = try #require(TopicFilter(expression: "tns1:Device//.|tns1:VideoSource/*"))
        #expect(anyDevice.matches(.storageFailure) && anyDevice.matches(.signalLoss) && !anyDevice.matches(.motion))
        #expect(TopicFilter(expression: "tns1:RuleEngine//") == nil && TopicFilter(expression: "") == nil)
        let subscriptions = PullPointSubscriptions()
        subscriptions.publish(Self.state(), nowMs: 0)
        let id = try subscriptions.subscribe(lifetimeMs: 60_000, filter: motionOnly, nowMs: 0).id
        subscriptions.publish(Self.state(motion: true, storage: true), nowMs: 1)
        let messages = try subscriptions.pull(id, limit: 100, nowMs: 2).messages
        #expect(messages.map(\.topic) == [.motion, .motion], "the initial motion state, then its change; no storage")
    }

    @Test("xs:duration: seconds, minutes, hours, days and fractions; years, months and junk refused")
    func durations() {
        #expect(XMLDuration.milliseconds("PT600S") == 600_000)
        #expect(XMLDuration.milliseconds("PT1M30.5S") == 90_500)
        #expect(XMLDuration.milliseconds("P1DT2H") == 93_600_000)
        #expect(XMLDuration.milliseconds("PT0S") == 0)
        for bad in ["", "P", "PT", "600", "P1Y", "P1M", "PT-5S", "PT1.5M", "PTS", "PT5S5", "PT1e9S"] {
            #expect(XMLDuration.milliseconds(bad) == nil, "\(bad)")
        }
    }

    @Test("the long poll answers at once with queued messages, wakes when one comes, and ends at its timeout empty")
    func longPoll() async throws {
        let subscriptions = PullPointSubscriptions()
        subscriptions.publish(Self.state(), nowMs: 0)
        let now = WallClock.nowMs()
        let id = try subscriptions.subscribe(lifetimeMs: 600_000, nowMs: now).id
        let manager = SubscriptionManager(subscriptions: subscriptions, id: id)
        let pull = { (timeout: String) throws -> SOAPRequest in
            try ONVIFServiceTests.request(
                "PullMessages", namespace: SOAPNamespace.events, inner: "<Timeout>\(timeout)</Timeout><MessageLimit>10</MessageLimit>")
        }
        let initial = try await manager.respond(to: pull("PT10S"))
        #expect(initial.components(separatedBy: "PropertyOperation=\"Initialized\"").count - 1 == EventTopic.allCases.count)
        let waiting = try pull("PT60S")
        async let woken = manager.respond(to: waiting)
        try await Task.sleep(for: .milliseconds(200))
        subscriptions.publish(Self.state(motion: true), nowMs: now + 1_000)
        let changed = try await woken
        #expect(changed.contains("tns1:RuleEngine/CellMotionDetector/Motion") && changed.contains("Name=\"IsMotion\" Value=\"true\""))
        let empty = try await manager.respond(to: pull("PT0.2S"))
        #expect(!empty.contains("NotificationMessage") && empty.contains("TerminationTime"))
        _ = try await manager.respond(to: ONVIFServiceTests.request("Unsubscribe", namespace: SOAPNamespace.notification))
        await #expect(throws: SOAPFault.self) { try await manager.respond(to: pull("PT1S")) }
    }

    @Test("the event service: a PullPoint at an address from the Host, its topics described, a full table refused")
    func eventService() throws {
        let subscriptions = PullPointSubscriptions()
        let service = EventService(subscriptions: subscriptions)
        let created = try ONVIFServiceTests.answer(
            service, "CreatePullPointSubscription", namespace: SOAPNamespace.events, inner: "<InitialTerminationTime>PT600S</InitialTerminationTime>")
        let address = try #require(created.descendant("Address")?.text)
        #expect(address.hasPrefix("http://10.0.0.5:8090/onvif/subscription/"))
        let currentText = try #require(created.descendant("CurrentTime")?.text)
        let terminationText = try #require(created.descendant("TerminationTime")?.text)
        let current = try #require(UsernameTokenCheck.parseTime(currentText))
        let termination = try #require(UsernameTokenCheck.parseTime(terminationText))
        #expect(termination - current == 600_000)
        let properties = try ONVIFServiceTests.answer(service, "GetEventProperties", namespace: SOAPNamespace.events)
        let motion = try #require(properties.descendant("CellMotionDetector")?.child("Motion"))
        #expect(motion.attributes["topic"] == "true")
        #expect(motion.descendant("Data")?.child("SimpleItemDescription")?.attributes["Name"] == "IsMotion")
        #expect(properties.descendant("HardwareFailure")?.child("StorageFailure") != nil)
        #expect(properties.descendant("RecordingConfig")?.child("JobState") != nil)
        for _ in 1..<PullPointSubscriptions.maximumCount {
            _ = try ONVIFServiceTests.answer(service, "CreatePullPointSubscription", namespace: SOAPNamespace.events)
        }
        #expect(throws: SOAPFault.self) { try ONVIFServiceTests.answer(service, "CreatePullPointSubscription", namespace: SOAPNamespace.events) }
        #expect(throws: SOAPFault.self) {
            try ONVIFServiceTests.answer(
                service, "CreatePullPointSubscription", namespace: SOAPNamespace.events, inner: "<InitialTerminationTime>soon</InitialTerminationTime>")
        }
    }

    @Test("motion: a still picture is none, a cell that brightens is motion, which ends 2 s after the last change")
    func motion() {
        var sampler = MotionSampler()
        var frame = SnapshotFrame()
        frame.width = 320
        frame.height = 180
        frame.planes = [UInt8](repeating: 100, count: 320 * 180 * 3 / 2)
        // Noise of a level or two moves no cell.
        for step in 0..<4 {
            frame.sequence = step + 1
            for index in stride(from: step, to: 320 * 180, by: 7) { frame.planes[index] = UInt8(100 + (index + step) % 3) }
            let moving = sampler.update(frame, nowMs: Int64(step) * 500)
            #expect(!moving)
        }
        // A 20x20 block brightens by 60 levels: one cell's mean moves by far more than the threshold.
        frame.sequence = 10
        for y in 40..<60 { for x in 100..<120 { frame.planes[y * 320 + x] = 160 } }
        let brightened = sampler.update(frame, nowMs: 2_000)
        #expect(brightened)
        let sameCopy = sampler.update(frame, nowMs: 3_000)
        #expect(sameCopy, "the same copy again: motion holds")
        frame.sequence = 11
        let withinHold = sampler.update(frame, nowMs: 3_500)
        #expect(withinHold, "still within the hold")
        let afterHold = sampler.update(frame, nowMs: 4_100)
        #expect(!afterHold, "2 s after the last change")
    }
}
