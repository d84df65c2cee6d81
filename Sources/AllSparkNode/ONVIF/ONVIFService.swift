/// One ONVIF service: the response body's XML for each operation it knows; anything else a
/// `SOAPFault` (which the route answers with HTTP 400).
protocol ONVIFService: Sendable {
    /// Operations answered without credentials (the Core spec's pre-auth list).
    static var preAuthOperations: Set<String> { get }
    func respond(to request: SOAPRequest, at endpoint: ONVIFEndpoint) throws(SOAPFault) -> String
}
