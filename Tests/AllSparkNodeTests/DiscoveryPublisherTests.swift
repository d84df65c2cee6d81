import Foundation
import Logging
import Testing
@testable import AllSparkNode

extension DiscoveryDaemonTests {
    @Suite("publishing the node")
    struct Publishing {
        let type = NodeAdvertisement.serviceType
        let logger = Logger(label: "test.discovery.publisher")

        init() throws {
            try AvahiTestDaemon.ensureRunning()
        }

        func publisher(_ name: String, port: UInt16, extraTXT: [String: String] = [:]) throws -> AvahiPublisher {
            let advertisement = try NodeAdvertisement(
                name: name, port: port, version: "1.2.3", tlsEnabled: false, extraTXT: extraTXT)
            return AvahiPublisher(advertisement: advertisement, logger: logger)
        }

        func visible(_ name: String) throws -> BrowsedService? {
            try BrowsedService.list(type: type).first { $0.name == name }
        }

        @Test func publishesPortAndTXTThenWithdrawsOnStop() throws {
            let publisher = try publisher("Discovery Test Node", port: 18555, extraTXT: ["camera": "front"])
            publisher.start()
            defer { publisher.stop() }
            #expect(eventually(seconds: 10) { publisher.state == .registered(name: "Discovery Test Node") })

            var found: BrowsedService?
            #expect(try eventually(seconds: 10) {
                found = try visible("Discovery Test Node")
                return found != nil
            })
            let service = try #require(found)
            #expect(service.port == 18555)
            #expect(service.interface == "lo")
            #expect(Set(service.txt) == ["name=Discovery Test Node", "version=1.2.3", "api=/api", "tls=off", "camera=front"])

            publisher.stop()
            #expect(publisher.state == .stopped)
            #expect(try eventually(seconds: 10) { try visible("Discovery Test Node") == nil })
        }

        @Test func takesAnAlternativeNameWhenAnotherProcessHoldsIt() throws {
            let other = try AvahiPublishProcess(name: "Discovery Collision", type: type, port: 18556)
            defer { other.stop() }
            #expect(try eventually(seconds: 10) { try visible("Discovery Collision") != nil })

            let publisher = try publisher("Discovery Collision", port: 18557)
            publisher.start()
            defer { publisher.stop() }
            #expect(eventually(seconds: 10) { publisher.state == .registered(name: "Discovery Collision #2") })
            #expect(try eventually(seconds: 10) {
                try visible("Discovery Collision")?.port == 18556 && visible("Discovery Collision #2")?.port == 18557
            })
        }

        @Test func twoPublishersWithOneNameBothGetPublished() throws {
            let first = try publisher("Discovery Twin", port: 18558)
            first.start()
            defer { first.stop() }
            #expect(eventually(seconds: 10) { first.state == .registered(name: "Discovery Twin") })

            let second = try publisher("Discovery Twin", port: 18559)
            second.start()
            defer { second.stop() }
            #expect(eventually(seconds: 10) { second.state == .registered(name: "Discovery Twin #2") })
            #expect(try eventually(seconds: 10) {
                try visible("Discovery Twin")?.port == 18558 && visible("Discovery Twin #2")?.port == 18559
            })
        }

        @Test func registersAgainAfterTheDaemonRestarts() throws {
            let publisher = try publisher("Discovery Restart", port: 18560)
            publisher.start()
            defer { publisher.stop() }
            #expect(try eventually(seconds: 10) { try visible("Discovery Restart") != nil })

            try AvahiTestDaemon.run("restart")
            // By itself, with no restart of the publisher: a publisher that never registers
            // again misses any bound; 30 s, not 10, is one a loaded box does not.
            #expect(try eventually(seconds: 30) {
                try publisher.state.isRegistered && visible("Discovery Restart")?.port == 18560
            })
        }

        @Test func waitsForAnAbsentDaemonThenRegisters() throws {
            try AvahiTestDaemon.run("stop")
            defer { try? AvahiTestDaemon.ensureRunning() }
            let publisher = try publisher("Discovery Late Daemon", port: 18561)
            publisher.start()
            defer { publisher.stop() }
            #expect(eventually(seconds: 5) { publisher.state == .waitingForDaemon })

            try AvahiTestDaemon.ensureRunning()
            #expect(eventually(seconds: 10) { publisher.state == .registered(name: "Discovery Late Daemon") })
            #expect(try eventually(seconds: 10) { try visible("Discovery Late Daemon") != nil })
        }

        @Test func retriesWithoutDBusThenRegisters() throws {
            try AvahiTestDaemon.run("stop-all")
            defer { try? AvahiTestDaemon.ensureRunning() }
            // The script stops only a D-Bus it started; the machine's own bus stays, and then
            // this test cannot take D-Bus away: a failure that says so, not a silent pass
            // (CI's machine and the Debian roots run no bus but the script's).
            guard try !AvahiTestDaemon.systemBusAnswers() else {
                Issue.record("the machine's own system D-Bus still answers after start-avahi.sh stop-all: a publisher without D-Bus cannot be tested here")
                return
            }
            let publisher = try publisher("Discovery No DBus", port: 18562)
            publisher.start()
            defer { publisher.stop() }
            #expect(publisher.state == .waitingForDaemon)

            try AvahiTestDaemon.ensureRunning()
            #expect(eventually(seconds: 10) { publisher.state == .registered(name: "Discovery No DBus") })
            #expect(try eventually(seconds: 10) { try visible("Discovery No DBus") != nil })
        }
    }
}
