import Foundation
import Logging
import Testing
@testable import AllSparkNode

extension DiscoveryDaemonTests {
    @Suite("finding an edge server")
    struct FindingEdgeServer {
        let browser = EdgeServerBrowser(logger: Logger(label: "test.discovery.browser"))

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

        @Test func returnsNilWhenNoneAppearsInTime() async throws {
            // A type nobody publishes: other suites may run an edge server meanwhile.
            let browser = EdgeServerBrowser(serviceType: "_allspark-absent._tcp", logger: Logger(label: "test.discovery.browser"))
            // Without the timeout the search would never end; the bound only has to tell
            // "returned" from "hung" on a loaded 2-core machine, so it is generous.
            let started = ContinuousClock.now
            let found = try await browser.findFirst(timeout: .milliseconds(1500))
            #expect(found == nil)
            #expect(ContinuousClock.now - started < .seconds(20))
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

        @Test func stopsWhenCancelled() async throws {
            let browser = browser
            let search = Task { try await browser.findFirst(timeout: .seconds(60)) }
            try await Task.sleep(for: .milliseconds(300))
            let started = ContinuousClock.now
            search.cancel()
            await #expect(throws: CancellationError.self) { try await search.value }
            // Well under the 60 s timeout: cancellation, not the timeout, ended it.
            #expect(ContinuousClock.now - started < .seconds(20))
        }
    }
}
