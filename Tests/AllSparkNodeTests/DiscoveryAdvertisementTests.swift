import Testing
@testable import AllSparkNode

@Suite("Discovery: advertisement and parsing, no daemon")
struct DiscoveryAdvertisementTests {
    @Test func txtRecordHasFixedKeysThenExtrasInKeyOrder() throws {
        let advertisement = try NodeAdvertisement(
            name: "Lab Camera 1", port: 18555, version: "0.3.0", tlsEnabled: true,
            extraTXT: ["zone": "north", "camera": "front"])
        #expect(advertisement.txtRecord == [
            "name=Lab Camera 1", "version=0.3.0", "api=/api", "tls=on", "camera=front", "zone=north",
        ])
    }

    @Test func rejectsNamesDNSSDCannotCarry() {
        #expect(throws: DiscoveryError.self) {
            try NodeAdvertisement(name: "", port: 1, version: "1", tlsEnabled: false)
        }
        #expect(throws: DiscoveryError.self) {
            try NodeAdvertisement(name: String(repeating: "x", count: 64), port: 1, version: "1", tlsEnabled: false)
        }
    }

    @Test func rejectsBadOrReservedTXTKeys() {
        #expect(throws: DiscoveryError.self) {
            try NodeAdvertisement(name: "n", port: 1, version: "1", tlsEnabled: false, extraTXT: ["tls": "off"])
        }
        #expect(throws: DiscoveryError.self) {
            try NodeAdvertisement(name: "n", port: 1, version: "1", tlsEnabled: false, extraTXT: ["a=b": "c"])
        }
        #expect(throws: DiscoveryError.self) {
            try NodeAdvertisement(
                name: "n", port: 1, version: "1", tlsEnabled: false, extraTXT: ["long": String(repeating: "v", count: 251)])
        }
    }

    @Test func timeoutIsClampedToWholeMilliseconds() {
        #expect(EdgeServerBrowser.milliseconds(.milliseconds(1500)) == 1500)
        #expect(EdgeServerBrowser.milliseconds(.seconds(-1)) == 0)
        #expect(EdgeServerBrowser.milliseconds(.seconds(10_000_000)) == UInt32.max)
    }

    @Test func webSocketURLBracketsIPv6() {
        let v4 = DiscoveredService(host: "192.168.1.5", port: 8080, name: "AllSpark Server", hostName: "s.local")
        #expect(v4.webSocketURL(secure: false) == "ws://192.168.1.5:8080/")
        let v6 = DiscoveredService(host: "fe80::1%eth0", port: 9080, name: "AllSpark Server", hostName: "s.local")
        #expect(v6.webSocketURL(secure: true) == "wss://[fe80::1%25eth0]:9080/")
    }

    @Test func parsesAvahiBrowseResolvedLines() throws {
        let line = #"=;lo;IPv4;Lab\032Camera\0321\0322;_allspark-node._tcp;local;vm.local;127.0.0.1;18555;"tls=off" "say=\"hi\"""#
        let service = try #require(BrowsedService(parsableLine: line))
        #expect(service.name == "Lab Camera 1 2")
        #expect(service.port == 18555)
        #expect(service.txt == ["tls=off", #"say="hi""#])
        #expect(BrowsedService(parsableLine: "+;lo;IPv4;x;_t._tcp;local") == nil)
    }
}
