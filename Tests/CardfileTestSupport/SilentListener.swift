import Foundation

/// A TCP socket on 127.0.0.1 that accepts connections (the kernel's queue does) and never says
/// a word: a server that hangs. Closed by ``close()``.
public struct SilentListener: Sendable {
    public let socket: Int32
    public let port: Int

    public init() throws {
        let fd = Foundation.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
        guard fd >= 0, bound == 0, listen(fd, 8) == 0 else {
            if fd >= 0 { Foundation.close(fd) }
            throw PostgresTestServer.Missing(description: "cannot listen on 127.0.0.1")
        }
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        socket = fd
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    public func close() { _ = Foundation.close(socket) }

    /// A port where nothing listens now: one a listener had, then gave back.
    public static func closedPort() throws -> Int {
        let listener = try SilentListener()
        listener.close()
        return listener.port
    }
}
