import Foundation

/// A TCP relay in front of a PostgreSQL server that can lose one answer: once armed with
/// ``cutAfterNextCommit()``, the connection that next sends `COMMIT` has it delivered to the
/// server, and then the server's answer is dropped and the connection closed at both ends,
/// as a network failure at the worst moment would. Every other byte goes through unchanged.
///
/// For tests of what a client does when it cannot know whether its commit happened.
public final class CuttingProxy: @unchecked Sendable {
    /// The port it listens on, on 127.0.0.1.
    public let port: Int
    private let listener: Int32
    private let target: Int
    private let lock = NSLock()
    private var armed = false
    private var sockets: [Int32] = []

    /// Relays 127.0.0.1:``port`` to 127.0.0.1:`targetPort`.
    public init(targetPort: Int) throws {
        target = targetPort
        let listening = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = Self.address(port: 0)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listening, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard listening >= 0, bound == 0, listen(listening, 16) == 0 else {
            throw PostgresTestServer.Missing(description: "the proxy could not listen: errno \(errno)")
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listening, $0, &length) }
        }
        listener = listening
        port = Int(UInt16(bigEndian: address.sin_port))
        Thread.detachNewThread { [self] in accepting() }
    }

    /// Makes the next `COMMIT` sent through the proxy reach the server and its answer not
    /// come back.
    public func cutAfterNextCommit() {
        lock.withLock { armed = true }
    }

    /// Stops listening and closes every relayed connection.
    public func stop() {
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
        for socket in lock.withLock({ sockets }) { shutdown(socket, Int32(SHUT_RDWR)) }
    }

    private static func address(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return address
    }

    private func accepting() {
        while true {
            let client = accept(listener, nil, nil)
            if client < 0 { return }
            let server = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = Self.address(port: target)
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(server, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard connected == 0 else {
                close(client)
                close(server)
                continue
            }
            lock.withLock { sockets += [client, server] }
            let cut = CutFlag()
            Thread.detachNewThread { [self] in relay(from: client, to: server, cut: cut, watchingForCommit: true) }
            Thread.detachNewThread { [self] in relay(from: server, to: client, cut: cut, watchingForCommit: false) }
        }
    }

    private final class CutFlag: @unchecked Sendable {
        private let lock = NSLock()
        private var set = false
        var isSet: Bool { lock.withLock { set } }
        func raise() { lock.withLock { set = true } }
    }

    private func relay(from source: Int32, to destination: Int32, cut: CutFlag, watchingForCommit: Bool) {
        var buffer = [UInt8](repeating: 0, count: 65536)
        let commit = Array("COMMIT".utf8)
        while true {
            let count = read(source, &buffer, buffer.count)
            if count <= 0 { break }
            let chunk = Array(buffer[0..<count])
            if watchingForCommit, chunk.firstRange(of: commit) != nil, lock.withLock({ defer { armed = false }; return armed }) {
                cut.raise()
            }
            if !watchingForCommit, cut.isSet { break }
            var sent = 0
            while sent < count {
                let wrote = chunk[sent...].withUnsafeBytes { write(destination, $0.baseAddress, count - sent) }
                if wrote <= 0 { break }
                sent += wrote
            }
        }
        shutdown(source, Int32(SHUT_RDWR))
        shutdown(destination, Int32(SHUT_RDWR))
    }
}
