import Foundation
import Logging
import Testing
@testable import AllSparkNode

extension DiscoveryDaemonTests {
    @Suite("finding an edge server")
    struct FindingEdgeServer {
        let browser = EdgeServerBrowser(logger: Logger(label: "test.discovery.browser"))
        /// The searches these limits catch would wait 10 minutes. Half that, not less: under
        /// the whole Swift suite on 2 cores, a search that ends after avahi's first answer
        /// took 134 s, its task waiting for a cooperative thread the other suites held.
        static let limitMinutes = 5

        init() throws {
            try AvahiTestDaemon.ensureRunning()
        }

        @Test func findsAPublishedEdgeServer() async throws {
            let server = try AvahiPublishProcess(name: "AllSpark Server", type: "_allspark._tcp", port: 18080)
            defer { server.stop() }
            let found = try #require(try await browser.findFirst(timeout: .seconds(10)))
            #expect(found.name == "AllSpark Server")
            #expect(found.port == 18080)
            #expect(found.host == "127.0.0.1")
            #expect(found.webSocketURL(secure: false) == "ws://127.0.0.1:18080/")
        }

        // The time limit is the check that the timeout works: without it the search never
        // ends. (Wall-clock bounds inside the test are not: on 2 cores the other tests can
        // hold both of Swift's cooperative threads for many seconds.)
        @Test(.timeLimit(.minutes(Self.limitMinutes)))
        func returnsNilWhenNoneAppearsInTime() async throws {
            // A type nobody publishes: other suites may run an edge server meanwhile.
            let browser = EdgeServerBrowser(serviceType: "_allspark-absent._tcp", logger: Logger(label: "test.discovery.browser"))
            let found = try await browser.findFirst(timeout: .milliseconds(1500))
            #expect(found == nil)
        }

        @Test func throwsWhenTheDaemonIsAbsent() async throws {
            try AvahiTestDaemon.run("stop")
            defer { try? AvahiTestDaemon.ensureRunning() }
            await #expect {
                _ = try await browser.findFirst(timeout: .seconds(5))
            } throws: { error in
                guard case DiscoveryError.daemonUnavailable = error else { return false }
                return true
            }
        }

        // Listening for all of a type ends once avahi says no more are likely soon (about 1 s),
        // not at the end of its window: the time limit fails a search that waits ten minutes.
        @Test(.timeLimit(.minutes(Self.limitMinutes)))
        func findingAllEndsWhenAvahiHasHeardEveryone() async throws {
            let node = try AvahiPublishProcess(name: "cam-all-for-now", type: "_allspark-allnow._tcp", port: 18081)
            defer { node.stop() }
            let browser = EdgeServerBrowser(serviceType: "_allspark-allnow._tcp", logger: Logger(label: "test.discovery.browser"))
            var found: [DiscoveredService] = []
            // The publisher registers in the background; ask until it is heard.
            while found.isEmpty {
                found = try await browser.findAll(window: .seconds(600))
            }
            #expect(found.map(\.name) == ["cam-all-for-now"])
            #expect(found.first?.port == 18081)
            let none = EdgeServerBrowser(serviceType: "_allspark-absent._tcp", logger: Logger(label: "test.discovery.browser"))
            #expect(try await none.findAll(window: .seconds(600)).isEmpty)
        }

        // A search for ten minutes must end when cancelled, well within the time limit.
        @Test(.timeLimit(.minutes(Self.limitMinutes)))
        func stopsWhenCancelled() async throws {
            let browser = browser
            let search = Task { try await browser.findFirst(timeout: .seconds(600)) }
            try await Task.sleep(for: .milliseconds(300))
            search.cancel()
            await #expect(throws: CancellationError.self) { try await search.value }
        }
    }
}
