import AllSparkNode
import ArgumentParser
import Foundation
import Logging
import ServiceLifecycle

struct RunCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "run", abstract: "Record continuously until SIGTERM or SIGINT.")

    @OptionGroup var configOptions: ConfigOptions

    @Option(help: "auto, testsrc, v4l2:<bus info or card name> (see `devices`), a /dev/videoN or /dev/v4l/... device, or a media file.")
    var source: String?
    @Option(help: "Output size WxH, e.g. 1280x720.")
    var size: String?
    @Option(help: "Frames per second.")
    var fps: Double?
    @Option(help: "Container of new chunks: mp4 or mov.")
    var format: String?
    @Option(name: .customLong("chunk-ms"), help: "Chunk length in ms (videoChunkDurationMs).")
    var chunkMs: Int?
    @Option(name: .customLong("cap-mb"), help: "Store cap in MiB, decimals allowed (videoBufferMaxMB).")
    var capMB: Double?
    @Option(help: "Privacy mode: face (default), body or none.")
    var privacy: String?
    @Option(name: .customLong("privacy-detector"), help: "Face detector: auto (default), dnn, cascades or both (privacyDetector).")
    var privacyDetector: String?
    @Option(name: .customLong("privacy-model"), help: "The face net's ONNX model file, YuNet 2023mar or CenterFace (privacyModel).")
    var privacyModel: String?
    @Option(help: "Port of the HTTP API, WebSocket and dashboard (server.port; 0 picks a free port).")
    var port: Int?
    @Option(help: "Bearer token required by the API and WebSocket (server.token; default: the one the node makes).")
    var token: String?
    @Option(help: "token (default) or none: whether the API, WebSocket and metrics need the token (server.auth).")
    var auth: String?
    @Option(help: "off or auto: https/wss with a self-signed certificate kept in the store (server.tls).")
    var tls: String?
    @Option(help: "Edge server uplink: a ws:// or wss:// URL, auto (mDNS), or off (uplink.url).")
    var uplink: String?
    @Option(name: .customLong("archive-endpoint"), help: "S3-compatible store to archive chunks to, e.g. http://127.0.0.1:7480, or off (archive.endpoint).")
    var archiveEndpoint: String?
    @Option(name: .customLong("archive-bucket"), help: "Bucket of the archive (archive.bucket); credentials from AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY.")
    var archiveBucket: String?
    @Option(name: .customLong("archive-prefix"), help: "Key prefix in the bucket (archive.prefix; default <clientName>/).")
    var archivePrefix: String?
    @Flag(name: .customLong("no-loop"), help: "Stop at the end of a file source instead of looping.")
    var noLoop = false
    @Flag(name: .customLong("no-pace"), help: "Read a file or the test pattern as fast as the pipeline goes; frame times follow the file.")
    var noPace = false
    @Flag(help: "Log debug messages, libav's included.")
    var verbose = false

    func flagOverrides() throws -> [(key: String, value: ConfigValue)] {
        var flags: [(key: String, value: ConfigValue)] = []
        if let source { flags.append(("source", .text(source))) }
        if let size {
            let parts = size.lowercased().split(separator: "x")
            guard parts.count == 2, let width = Int(parts[0]), let height = Int(parts[1]) else {
                throw ValidationError("--size must look like 1280x720, got \(size)")
            }
            flags.append(("width", .number(Double(width))))
            flags.append(("height", .number(Double(height))))
        }
        if let fps { flags.append(("fps", .number(fps))) }
        if let format { flags.append(("videoFormat", .text(format))) }
        if let chunkMs { flags.append(("videoChunkDurationMs", .number(Double(chunkMs)))) }
        if let capMB { flags.append(("videoBufferMaxMB", .number(capMB))) }
        if let privacy { flags.append(("privacy", .text(privacy))) }
        if let privacyDetector { flags.append(("privacyDetector", .text(privacyDetector))) }
        if let privacyModel { flags.append(("privacyModel", .text(privacyModel))) }
        if let port { flags.append(("server.port", .number(Double(port)))) }
        if let token { flags.append(("server.token", .text(token))) }
        if let auth { flags.append(("server.auth", .text(auth))) }
        if let tls { flags.append(("server.tls", .text(tls))) }
        if let uplink { flags.append(("uplink.url", .text(uplink))) }
        if let archiveEndpoint { flags.append(("archive.endpoint", .text(archiveEndpoint))) }
        if let archiveBucket { flags.append(("archive.bucket", .text(archiveBucket))) }
        if let archivePrefix { flags.append(("archive.prefix", .text(archivePrefix))) }
        if noLoop { flags.append(("loop", .flag(false))) }
        if noPace { flags.append(("pace", .flag(false))) }
        return flags
    }

    func run() async throws {
        MallocTuning.limitArenas(to: 2)
        MallocTuning.fixMmapThreshold(bytes: 128 * 1024)
        TransparentHugePages.disable()
        FileDescriptorLimit.raiseToHard()
        let toJournal = JournalLogHandler.isStandardErrorTheJournal()
        LoggingSystem.bootstrap { label in
            var handler: any LogHandler = toJournal ? JournalLogHandler() : StreamLogHandler.standardError(label: label)
            handler.logLevel = verbose ? .debug : .info
            return handler
        }
        LibavLogging.configure(verbose: verbose, toJournal: toJournal)
        let logger = Logger(label: "allspark-node")
        let config = try configOptions.load(flags: try flagOverrides())

        let source = CaptureSource.resolve(config.source)
        if config.source == "auto" {
            logger.notice("source auto: \(source == .testPattern ? "no V4L2 capture device, using the test pattern" : "using \(source)")")
        }
        try await CameraNode(config: config, logger: logger).run()
    }
}
