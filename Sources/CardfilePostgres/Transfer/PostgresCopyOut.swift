import CardfileStore
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import NIOSSL
import PostgresNIO

/// `COPY (…) TO STDOUT` on a connection of its own, read as it comes: what `psql`'s `\copy …
/// TO` does, which postgres-nio cannot (it has no copy-out; a `CopyOutResponse` ends its
/// connection).
///
/// postgres-nio opens and logs in the connection, over a channel this opens itself
/// (postgres-nio's `establishedChannel`), so every way of logging in it knows still works.
/// Then a ``CopyOutHandler`` of this file's own, placed just after the encryption (or first),
/// sends the `COPY` in the simple-query protocol and takes every message that comes back; the
/// connection is closed at the end, never used by postgres-nio again.
///
/// Not used with `sslmode=verify-full`: a channel opened here has no host name for
/// postgres-nio to check the certificate against.
enum PostgresCopyOut {
    /// True when `location` can be read this way (see the type's comment).
    static func isPossible(for location: PostgresLocation) -> Bool {
        location.sslMode != .verifyFull
    }

    /// Runs `copy` (a `COPY … TO STDOUT` statement with no parameters) and hands its output to
    /// `body` in chunks as they arrive, with the rows each holds; returns the rows the server
    /// says it wrote. When
    /// `isCancelled` turns true (asked after each chunk), the connection is closed and nil
    /// returned. `opened` and `closing` hear of the connection (an engine ends it with its
    /// own when the server stops answering).
    static func run(
        _ copy: String, at location: PostgresLocation, isCancelled: () -> Bool,
        opened: (PostgresSession) -> Void, closing: (PostgresSession) -> Void, _ body: (ByteBuffer, Int) throws -> Void
    ) throws -> Int? {
        let (session, channel) = try open(location)
        opened(session)
        defer {
            closing(session)
            session.close()
        }
        let sink = CopyOutSink()
        let handler = CopyOutHandler(sink: sink)
        do {
            try channel.eventLoop.submit {
                let pipeline = channel.pipeline.syncOperations
                // (Reads of up to 1 MiB: a COPY's rows come as fast as the server writes them.)
                try channel.syncOptions?.setOption(
                    ChannelOptions.recvAllocator, value: AdaptiveRecvByteBufferAllocator(minimum: 64 << 10, initial: 256 << 10, maximum: 1 << 20))
                if let encryption = try? pipeline.handler(type: NIOSSLClientHandler.self) {
                    try pipeline.addHandler(handler, position: .after(encryption))
                } else {
                    try pipeline.addHandler(handler, position: .first)
                }
                handler.start(copy)
            }.wait()
        } catch {
            throw PostgresProblem(running: error, on: location)
        }
        while true {
            switch sink.next() {
            case .chunk(let chunk, let rows):
                try body(chunk, rows)
                if isCancelled() { return nil }
                if sink.wantsMore() { channel.eventLoop.execute { handler.resume() } }
            case .done(let rows):
                return rows
            case .failed(let problem):
                throw problem.located(at: location)
            }
        }
    }

    /// A connection logged in over a channel opened here, and that channel.
    private static func open(_ location: PostgresLocation) throws(PostgresProblem) -> (PostgresSession, any Channel) {
        let tls: PostgresConnection.Configuration.TLS
        do { tls = try PostgresSession.tls(for: location) } catch let problem as PostgresProblem { throw problem } catch {
            throw .encryptionFailed(server: location.serverName, reason: String(describing: error))
        }
        let loop = PostgresConnection.defaultEventLoopGroup.any()
        guard let bootstrap = ClientBootstrap(validatingGroup: loop) else {
            throw .unreachable(server: location.serverName, reason: "no event loop to connect on")
        }
        let connecting = bootstrap.connectTimeout(.seconds(location.connectTimeout.components.seconds))
        let opening = location.isSocket
            ? connecting.connect(unixDomainSocketPath: "\(location.host)/.s.PGSQL.\(location.port)")
            : connecting.connect(host: location.host, port: location.port)
        let channel: any Channel
        do { channel = try opening.wait() } catch { throw PostgresProblem(connecting: error, to: location) }
        let configuration = PostgresConnection.Configuration(
            establishedChannel: channel, tls: tls, username: location.user, password: location.password, database: location.database)
        do {
            return (try PostgresSession.open(location, configuration: configuration), channel)
        } catch {
            channel.close(promise: nil)
            throw error
        }
    }
}

/// What the copy's handler hands over, from the event loop to the thread that reads it.
final class CopyOutSink: @unchecked Sendable {
    enum Item {
        /// Rows as the server wrote them, and how many.
        case chunk(ByteBuffer, rows: Int)
        case done(rows: Int)
        case failed(CopyOutFailure)
    }

    /// Bytes held before the handler stops reading from the server (it reads again once the
    /// reader took them below half of it).
    static let limit = 4 << 20

    private let condition = NSCondition()
    private var items: [Item] = []
    private var held = 0
    private var ended = false

    func put(_ item: Item) {
        condition.lock()
        if case .chunk(let chunk, _) = item { held += chunk.readableBytes }
        if case .chunk = item {} else { ended = true }
        items.append(item)
        condition.signal()
        condition.unlock()
    }

    /// True while fewer bytes than ``limit`` wait.
    var hasRoom: Bool { condition.withLock { held < Self.limit } }

    /// True when the handler should read again: the bytes waiting fell below half the limit.
    func wantsMore() -> Bool { condition.withLock { held < Self.limit / 2 && !ended } }

    /// Waits for the next item.
    func next() -> Item {
        condition.lock()
        defer { condition.unlock() }
        while items.isEmpty { condition.wait() }
        let item = items.removeFirst()
        if case .chunk(let chunk, _) = item { held -= chunk.readableBytes }
        return item
    }
}

/// Why a copy ended early: the server's refusal or a lost connection.
enum CopyOutFailure: Error {
    case refused(message: String, detail: String?, sqlState: String)
    case lost(String)

    func located(at location: PostgresLocation) -> PostgresProblem {
        switch self {
        case .refused(let message, let detail, let state): return .refused(message: message, detail: detail, sqlState: state)
        case .lost(let reason): return .connectionLost(server: location.serverName, reason: reason)
        }
    }
}

/// Sends one simple query and reads the copy-out that answers it, message by message: the
/// rows (`CopyData`) go to the sink; `CommandComplete` gives the count; `ReadyForQuery` ends
/// it; an `ErrorResponse` fails it. Nothing reaches postgres-nio's handlers behind it. Reads
/// from the server only while the sink has room. Runs on its channel's event loop.
final class CopyOutHandler: ChannelDuplexHandler, @unchecked Sendable {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let sink: CopyOutSink
    private var context: ChannelHandlerContext?
    private var copying = false
    private var finished = false
    private var received = ByteBuffer()
    /// Rows taken from what was received, not yet handed over, and how many.
    private var outgoing = ByteBuffer()
    private var outgoingRows = 0
    /// Bytes of rows handed over at a time.
    static let handOverBytes = 256 << 10
    private var rows = 0
    private var failure: CopyOutFailure?
    /// A read held back while the sink was full.
    private var readHeld = false

    init(sink: CopyOutSink) {
        self.sink = sink
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    /// Sends `sql` as a simple query (`Q`, its length, the text, a zero byte).
    func start(_ sql: String) {
        guard let context else { return }
        copying = true
        var message = context.channel.allocator.buffer(capacity: sql.utf8.count + 6)
        message.writeInteger(UInt8(ascii: "Q"))
        message.writeInteger(Int32(sql.utf8.count + 5))
        message.writeString(sql)
        message.writeInteger(UInt8(0))
        context.writeAndFlush(NIOAny(message), promise: nil)
        context.read()
    }

    /// Reads again after the sink made room.
    func resume() {
        guard let context, readHeld, !finished else { return }
        readHeld = false
        context.read()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard copying else { return context.fireChannelRead(data) }
        var bytes = unwrapInboundIn(data)
        received.writeBuffer(&bytes)
        parse()
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        guard copying else { return context.fireChannelReadComplete() }
        if !finished, sink.hasRoom { context.read() } else if !finished { readHeld = true }
    }

    func read(context: ChannelHandlerContext) {
        guard copying else { return context.read() }
        if finished { return }
        if sink.hasRoom { context.read() } else { readHeld = true }
    }

    func channelInactive(context: ChannelHandlerContext) {
        if copying, !finished {
            finished = true
            sink.put(.failed(.lost("the connection was closed")))
        }
        if !copying { context.fireChannelInactive() }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard copying else { return context.fireErrorCaught(error) }
        if !finished {
            finished = true
            sink.put(.failed(.lost(String(describing: error))))
        }
        context.close(promise: nil)
    }

    /// Takes every whole message in what was received. (On local copies of the buffers: a
    /// class's properties are checked for exclusive access at each touch, a fifth of the
    /// time at a message a row.)
    private func parse() {
        guard !finished else { return }
        var received = self.received
        self.received = ByteBuffer()
        var outgoing = self.outgoing
        self.outgoing = ByteBuffer()
        var taken = outgoingRows
        var ended: CopyOutSink.Item?
        while ended == nil, received.readableBytes >= 5 {
            guard let type: UInt8 = received.getInteger(at: received.readerIndex),
                  let length: Int32 = received.getInteger(at: received.readerIndex + 1), length >= 4 else { break }
            guard received.readableBytes >= 1 + Int(length) else { break }
            received.moveReaderIndex(forwardBy: 5)
            guard var body = received.readSlice(length: Int(length) - 4) else { break }
            switch type {
            case UInt8(ascii: "d"):                                   // CopyData: one row
                // (Copied out: a slice would keep `received`'s storage, copied whole on its next write.)
                outgoing.writeBuffer(&body)
                taken += 1
            case UInt8(ascii: "C"):                                   // CommandComplete: "COPY n"
                let tag = body.readNullTerminatedString() ?? ""
                rows = Int(tag.split(separator: " ").last ?? "") ?? 0
            case UInt8(ascii: "E"):                                   // ErrorResponse
                failure = Self.refusal(&body)
            case UInt8(ascii: "Z"):                                   // ReadyForQuery: the end
                ended = failure.map { .failed($0) } ?? .done(rows: rows)
            default:                                                  // CopyOutResponse, CopyDone, notices, statuses
                break
            }
        }
        // Handed over in large chunks: a chunk a read woke the reading thread for every few
        // kilobytes, and switching threads took a third of the time.
        if outgoing.readableBytes >= Self.handOverBytes || (ended != nil && outgoing.readableBytes > 0) {
            sink.put(.chunk(outgoing, rows: taken))
            outgoing = ByteBuffer()
            taken = 0
        }
        self.outgoing = outgoing
        outgoingRows = taken
        if let ended {
            finished = true
            sink.put(ended)
        }
        if received.readableBytes == 0 { received.clear() } else if received.readerIndex > 1 << 16 { received.discardReadBytes() }
        self.received = received
    }

    /// An `ErrorResponse`'s fields: the code (`C`), message (`M`) and detail (`D`).
    private static func refusal(_ body: inout ByteBuffer) -> CopyOutFailure {
        var fields: [UInt8: String] = [:]
        while let code: UInt8 = body.readInteger(), code != 0 {
            fields[code] = body.readNullTerminatedString() ?? ""
        }
        return .refused(message: fields[UInt8(ascii: "M")] ?? "refused", detail: fields[UInt8(ascii: "D")], sqlState: fields[UInt8(ascii: "C")] ?? "")
    }
}
