import Foundation
import HummingbirdCore
import Logging
@testable import AllSparkNode

/// What the HTTP API reads from a request besides the token: query strings, Range headers
/// and JSON bodies, each through the function its route calls.
enum HTTPRequestTargets {
    static let byteRange = FuzzTarget(name: "byte-range", parses: "Range headers of chunk and clip downloads") { bytes in
        let header = FuzzInput.text(Array(bytes.dropFirst(2)))
        let fileSize = bytes.count >= 2 ? Int(bytes[0]) << 8 | Int(bytes[1]) : 0
        if case .partial(let range) = ByteRange.parse(header, fileSize: fileSize) {
            precondition(range.first >= 0 && range.first <= range.last && range.last < fileSize, "a range outside the file")
        }
    }

    /// The query of /api/chunks and /api/clip: parsed by Hummingbird as the routes have it,
    /// then their times read as the routes read them.
    static let timeQuery = FuzzTarget(name: "time-query", parses: "the query strings of /api/chunks and /api/clip") { bytes in
        let uri = URI("/api/clip?" + FuzzInput.text(bytes))
        let query = uri.queryParameters
        for name in ["start", "end"] {
            guard let ms = try? ChunkRoutes.epochMs(query.get(name), name: name) else { continue }
            precondition(ms >= 0 && ms <= Int64(UploadTimeRange.latestSeconds * 1000) + 1, "a time outside the accepted range")
        }
    }

    static let holdRequest = FuzzTarget(name: "hold-request", parses: "POST /api/holds bodies") { bytes in
        guard let request = try? HoldRoutes.request(from: FuzzInput.text(bytes)) else { return }
        precondition(request.startMs <= request.endMs, "a hold that ends before it starts")
    }

    /// PUT /api/config and the WebSocket's clientConfig apply through the same object.
    static let configUpdate = FuzzTarget(name: "config-update", parses: "PUT /api/config bodies and clientConfig objects") { bytes in
        guard let object = JSONValue.parse(FuzzInput.text(bytes))?.object else { return }
        let live = LiveConfiguration(config: NodeConfig(), recorder: nil, logger: FuzzLogging.silent)
        _ = try? live.apply(json: object)
    }
}

enum FuzzLogging {
    /// Targets log nothing: a log line per input would be most of the time spent.
    static let silent: Logger = {
        var logger = Logger(label: "fuzz", factory: { _ in SwiftLogNoOpLogHandler() })
        logger.logLevel = .critical
        return logger
    }()
}
