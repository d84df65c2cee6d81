import AsyncHTTPClient
import Foundation
import NIOCore

/// Measures the edge server's clock from what it already offers: `GET /api/health` answers
/// `timestamp` in epoch seconds (PROTOCOL.md). One HTTP client per connection, so after the
/// first request each sample rides a kept-alive connection and times only the request.
final class EdgeClockSampler: Sendable {
    /// Samples per burst; the fastest half of them are used.
    static let samplesPerBurst = 8
    /// Pause between samples of a burst, so a burst is not a load spike for the server.
    static let sampleSpacing: Duration = .milliseconds(25)

    let healthURL: URL
    private let client: HTTPClient

    init(healthURL: URL) {
        self.healthURL = healthURL
        var configuration = HTTPClient.Configuration(certificateVerification: .none)
        configuration.timeout = .init(connect: .seconds(2), read: .seconds(2))
        client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }

    /// Shuts the client down; call once when the connection ends.
    func close() async {
        try? await client.shutdown()
    }

    func burst() async throws -> ClockBurst? {
        var samples: [ClockSample] = []
        samples.reserveCapacity(Self.samplesPerBurst)
        for index in 0..<Self.samplesPerBurst {
            if index > 0 { try await Task.sleep(for: Self.sampleSpacing) }
            if let sample = try await sample() { samples.append(sample) }
        }
        return ClockBurst(samples: samples)
    }

    /// One exchange; nil when the server did not answer with a timestamp.
    private func sample() async throws -> ClockSample? {
        let sentMs = WallClock.nowPreciseMs()
        let body: ByteBuffer
        do {
            let response = try await client.execute(HTTPClientRequest(url: healthURL.absoluteString), timeout: .seconds(2))
            guard response.status == .ok else { return nil }
            body = try await response.body.collect(upTo: 1 << 16)
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            return nil
        }
        let receivedMs = WallClock.nowPreciseMs()
        guard let json = JSONValue.parse(String(buffer: body)), case .number(let seconds)? = json["timestamp"], seconds.isFinite, seconds > 0
        else { return nil }
        return ClockSample(sentMs: sentMs, receivedMs: receivedMs, serverMs: seconds * 1000)
    }
}
