import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// POST /onvif/device_service, /onvif/media_service, /onvif/media2_service, /onvif/event_service,
/// /onvif/subscription/<id>, /onvif/recording_service, /onvif/search_service and
/// /onvif/replay_service (SOAP 1.2),
/// and GET /onvif/snapshot.jpg, when `onvif.enabled`.
/// Every answer is SOAP: a request that cannot be read, names an unknown operation or lacks
/// credentials gets a Fault with HTTP 400.
struct ONVIFRoutes {
    let services: NodeServices
    /// Remembers the nonces of accepted UsernameTokens (one table for both services).
    let tokenCheck: UsernameTokenCheck
    let httpAuth: HTTPCredentialCheck

    init(services: NodeServices) {
        self.services = services
        tokenCheck = UsernameTokenCheck(user: services.live.config.onvif.user)
        httpAuth = HTTPCredentialCheck(user: services.live.config.onvif.user, policy: services.access)
    }

    static let maximumBodyBytes = XMLReader().maximumBytes

    func register(on router: Router<NodeRequestContext>) {
        guard services.live.config.onvif.enabled else { return }
        router.post(RouterPath(stringLiteral: ONVIFEndpoint.devicePath)) { request, context in
            await serve(request, context: context, preAuth: DeviceService.preAuthOperations) { soap, endpoint in
                try DeviceService(facts: facts(), interfaces: { NetworkInterfaceList.current() }).respond(to: soap, at: endpoint)
            }
        }
        router.post(RouterPath(stringLiteral: ONVIFEndpoint.mediaPath)) { request, context in
            await serve(request, context: context, preAuth: MediaService.preAuthOperations) { soap, endpoint in
                try MediaService(video: facts().video, requestKeyframe: services.recorder.requestKeyframe).respond(to: soap, at: endpoint)
            }
        }
        router.post(RouterPath(stringLiteral: ONVIFEndpoint.media2Path)) { request, context in
            await serve(request, context: context, preAuth: Media2Service.preAuthOperations) { soap, endpoint in
                try Media2Service(video: facts().video, requestKeyframe: services.recorder.requestKeyframe).respond(to: soap, at: endpoint)
            }
        }
        router.post(RouterPath(stringLiteral: ONVIFEndpoint.eventPath)) { request, context in
            await serve(request, context: context, preAuth: EventService.preAuthOperations) { soap, endpoint in
                try EventService(subscriptions: services.onvifEvents).respond(to: soap, at: endpoint)
            }
        }
        router.post(RouterPath(stringLiteral: ONVIFEndpoint.recordingPath)) { request, context in
            await serve(request, context: context, preAuth: RecordingService.preAuthOperations) { soap, endpoint in
                try RecordingService(facts: RecordingFacts(services: services, video: facts().video)).respond(to: soap, at: endpoint)
            }
        }
        router.post(RouterPath(stringLiteral: ONVIFEndpoint.searchPath)) { request, context in
            await serve(request, context: context, preAuth: SearchService.preAuthOperations) { soap, endpoint in
                try SearchService(facts: RecordingFacts(services: services, video: facts().video), searches: services.onvifSearches)
                    .respond(to: soap, at: endpoint)
            }
        }
        router.post(RouterPath(stringLiteral: ONVIFEndpoint.replayPath)) { request, context in
            await serve(request, context: context, preAuth: ReplayService.preAuthOperations) { soap, endpoint in
                try ReplayService(sessionTimeout: ReplaySessionTimeout(liveVideo: services.liveVideo)).respond(to: soap, at: endpoint)
            }
        }
        router.post(RouterPath(stringLiteral: ONVIFEndpoint.subscriptionPathPrefix + ":id")) { request, context in
            let id = context.parameters.get("id") ?? ""
            return await serve(request, context: context, preAuth: SubscriptionManager.preAuthOperations) { soap, _ in
                try await SubscriptionManager(subscriptions: services.onvifEvents, id: id).respond(to: soap)
            }
        }
        router.get(RouterPath(stringLiteral: ONVIFEndpoint.snapshotPath)) { request, context in
            try await snapshot(request, context: context)
        }
    }

    private func serve(
        _ request: Request, context: NodeRequestContext, preAuth: Set<String>,
        respond: (SOAPRequest, ONVIFEndpoint) async throws -> String
    ) async -> Response {
        let bytes: [UInt8]
        do {
            let body = try await request.body.collect(upTo: Self.maximumBodyBytes)
            bytes = Array(body.readableBytesView)
        } catch {
            return Self.fault(.malformed("the request body is over \(Self.maximumBodyBytes) bytes"))
        }
        do {
            let soap = try SOAPRequest.parse(bytes)
            try authorize(soap, preAuth: preAuth, address: AccessPolicy.clientAddress(context.remoteAddress))
            let body = try await respond(soap, endpoint(for: request, context: context))
            return Self.response(SOAPResponse.envelope(body: body), status: .ok)
        } catch let fault as SOAPFault {
            return Self.fault(fault)
        } catch {
            return Self.fault(.malformed("\(error)"))
        }
    }

    /// Pre-auth operations pass; with `server.auth: none` everything does; otherwise a
    /// UsernameToken whose digest matches the access token, through the node's limiter.
    private func authorize(_ soap: SOAPRequest, preAuth: Set<String>, address: String) throws(SOAPFault) {
        guard !preAuth.contains(soap.operationName), services.access.requiresToken else { return }
        let token = soap.usernameToken
        let decision = services.access.decide(address: address) { password in
            guard let token else { return false }
            return tokenCheck.check(token, password: password) == .valid
        }
        guard case .allowed = decision else { throw SOAPFault.notAuthorized() }
    }

    private func endpoint(for request: Request, context: NodeRequestContext) -> ONVIFEndpoint {
        let config = services.live.config
        let localPort = context.channel.localAddress?.port ?? config.server.port
        let authority = request.head.authority
        if let endpoint = ONVIFEndpoint(authority: authority, tls: config.server.usesTLS, defaultPort: localPort, rtspPort: config.server.rtspPort) {
            return endpoint
        }
        let local = context.channel.localAddress?.ipAddress ?? "127.0.0.1"
        return ONVIFEndpoint(
            scheme: config.server.usesTLS ? "https" : "http", host: local.contains(":") ? "[\(local)]" : local, port: localPort,
            rtspPort: config.server.rtspPort)
    }

    func facts() -> ONVIFDeviceFacts {
        let config = services.live.config
        let frame = services.recorder.latestSnapshot
        var video = ONVIFVideoSettings(config: config, frameWidth: frame?.width, frameHeight: frame?.height)
        video.signed = services.recorder.signing != nil
        return ONVIFDeviceFacts(
            identity: services.identity, firmwareVersion: NodeVersion.current, video: video,
            clockSynchronized: KernelClock.read()?.synchronized ?? false, hostname: ONVIFDeviceFacts.hostName(), user: config.onvif.user,
            replays: config.server.rtspPort > 0)
    }

    /// The masked live picture as JPEG, for GetSnapshotUri: Digest or Basic with the ONVIF
    /// user and the token, or the bearer token.
    private func snapshot(_ request: Request, context: NodeRequestContext) async throws -> Response {
        let address = AccessPolicy.clientAddress(context.remoteAddress)
        switch httpAuth.decide(request: request, address: address) {
        case .allowed: break
        case .throttled(let seconds):
            var response = Response(status: .tooManyRequests)
            response.headers[.retryAfter] = String(seconds)
            return response
        case .unauthorized:
            var response = Response(status: .unauthorized)
            for challenge in httpAuth.challenges() { response.headers.append(HTTPField(name: .wwwAuthenticate, value: challenge)) }
            return response
        }
        guard let snapshot = try services.snapshots.latestJPEG() else {
            return Response(status: .serviceUnavailable)
        }
        var headers = HTTPFields()
        headers[.contentType] = "image/jpeg"
        headers[.cacheControl] = "no-store"
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: snapshot.jpeg)))
    }

    static func fault(_ fault: SOAPFault) -> Response {
        response(fault.envelope, status: .badRequest)
    }

    static func response(_ xml: String, status: HTTPResponse.Status) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = SOAPResponse.contentType
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: xml)))
    }
}
