import CardfilePostgres
import CardfileTestSupport
import Foundation
import Testing

/// Reading a PostgreSQL URL as libpq reads it, and never letting its password into words.
@Suite("PostgreSQL locations")
struct LocationTests {
    let home = TemporaryDirectory()

    func resolve(_ url: String, _ environment: [String: String] = [:]) throws(PostgresLocationError) -> (PostgresLocation, [String]) {
        let (location, warnings) = try PostgresLocation.resolve(url, environment: environment, homeFolder: home.path, loginName: "ada")
        return (location, warnings)
    }

    @Test func aFullURLGivesEveryPart() throws {
        let (location, _) = try resolve("postgres://bob:s3cret@db.example.org:6543/books?sslmode=require")
        #expect(location.host == "db.example.org")
        #expect(location.port == 6543)
        #expect(location.user == "bob")
        #expect(location.password == "s3cret")
        #expect(location.passwordSource == .url)
        #expect(location.database == "books")
        #expect(location.sslMode == .require)
        #expect(location.description == "postgres://bob:*****@db.example.org:6543/books?sslmode=require")
    }

    @Test func whatTheURLLeavesOutComesFromTheEnvironmentThenLibpqsDefaults() throws {
        let environment = ["PGHOST": "pg.local", "PGPORT": "5433", "PGUSER": "carol", "PGDATABASE": "shop", "PGSSLMODE": "disable", "PGPASSWORD": "fromenv"]
        let (fromEnvironment, _) = try resolve("postgresql://", environment)
        #expect(fromEnvironment.host == "pg.local")
        #expect(fromEnvironment.port == 5433)
        #expect(fromEnvironment.user == "carol")
        #expect(fromEnvironment.database == "shop")
        #expect(fromEnvironment.sslMode == .disable)
        #expect(fromEnvironment.password == "fromenv")
        #expect(fromEnvironment.passwordSource == .environment)

        // The URL wins over the environment.
        let (mixed, _) = try resolve("postgres://dave@other:7000/", environment)
        #expect(mixed.host == "other")
        #expect(mixed.port == 7000)
        #expect(mixed.user == "dave")
        #expect(mixed.database == "shop")

        let (defaults, _) = try resolve("postgres://")
        #expect(defaults.host == PostgresLocation.defaultSocketFolder)
        #expect(defaults.isSocket)
        #expect(defaults.port == 5432)
        #expect(defaults.user == "ada")
        #expect(defaults.database == "ada")
        #expect(defaults.sslMode == .prefer)
        #expect(defaults.password == nil)
    }

    @Test func escapesBracketsAndSocketFolders() throws {
        let (escaped, _) = try resolve("postgres://us%40er:p%3Aa%2Fss%40@[::1]:5432/my%20db")
        #expect(escaped.user == "us@er")
        #expect(escaped.password == "p:a/ss@")
        #expect(escaped.host == "::1")
        #expect(escaped.database == "my db")
        #expect(escaped.description == "postgres://us%40er:*****@[::1]:5432/my%20db")

        let (socket, _) = try resolve("postgres://%2Fvar%2Frun%2Fpostgresql/books")
        #expect(socket.host == "/var/run/postgresql")
        #expect(socket.isSocket)

        let (parameters, _) = try resolve("postgres:///books?host=/tmp/pg&port=6000&user=eve&password=pw&connect_timeout=3")
        #expect(parameters.host == "/tmp/pg")
        #expect(parameters.port == 6000)
        #expect(parameters.user == "eve")
        #expect(parameters.password == "pw")
        #expect(parameters.connectTimeout == .seconds(3))
        #expect(parameters.description.contains("*****"))
        #expect(!parameters.description.contains("pw"))
    }

    @Test func unreadableURLsSayWhatIsWrongWithoutThePassword() throws {
        let cases: [(String, String)] = [
            ("postgres://u:hunter2@h:port/db", "port"),
            ("postgres://u:hunter2@h:70000/db", "port"),
            ("postgres://u:hunter2@h/db?sslmode=always", "sslmode"),
            ("postgres://u:hunter2@h/db?colour=blue", "does not read"),
            ("postgres://u:hunter2/x@h/db", "write / ? @ : in a password as %2F"),
            ("postgres://u:hunter2@a,b/db", "several hosts"),
            ("postgres://u:hunter2@[::1/db", "IPv6"),
            ("postgres://u:hunt%zzer2@h/db", "password"),
            ("postgres://u:hunter2@h/db?connect_timeout=soon", "connect_timeout"),
            ("mysql://u:hunter2@h/db", "postgres://"),
        ]
        for (url, named) in cases {
            do {
                _ = try resolve(url)
                Issue.record("\(url) was read")
            } catch {
                #expect(error.message.contains(named), "\(url): \(error.message)")
                #expect(!error.message.contains("hunter2"), "\(url): \(error.message)")
                #expect(!error.message.contains("hunt%zzer2"), "\(url): \(error.message)")
            }
        }
    }

    @Test func thePasswordFileIsReadAsLibpqReadsIt() throws {
        let file = home.path + "/.pgpass"
        try """
            # comments are skipped
            other:5432:*:bob:wrong
            db.example.org:5432:books:bob:right\\:one\\\\
            *:*:*:bob:fallback
            localhost:5432:*:sock:viadefaultsocket
            /tmp:5432:*:sock:viatmp
            *:*:*:colon:first\\:half:second half
            """.write(toFile: file, atomically: true, encoding: .utf8)
        chmod(file, 0o600)

        let (matched, warnings) = try resolve("postgres://bob@db.example.org/books")
        #expect(warnings.isEmpty)
        #expect(matched.password == "right:one\\")
        #expect(matched.passwordSource == .passwordFile(file))
        #expect(matched.description == "postgres://bob@db.example.org:5432/books", "a password from the file is not the URL's")

        let (wildcard, _) = try resolve("postgres://bob@elsewhere:9999/x")
        #expect(wildcard.password == "fallback")

        let (socket, _) = try resolve("postgres://sock@%2Ftmp/x")
        #expect(socket.password == "viatmp", "another socket folder is matched by its path")
        let (defaultSocket, _) = try resolve("postgres://sock@/x")
        #expect(defaultSocket.password == "viadefaultsocket", "localhost in the file stands for the default socket")
        let (colon, _) = try resolve("postgres://colon@h/x")
        #expect(colon.password == "first:half", "the password ends at an unescaped colon")
        // An empty password in the URL is none: PGPASSWORD, then the file, are asked.
        let (empty, _) = try resolve("postgres://bob:@db.example.org/books", ["PGPASSWORD": "env"])
        #expect(empty.password == "env")

        // The URL's own password and PGPASSWORD come first.
        let (url, _) = try resolve("postgres://bob:given@db.example.org/books")
        #expect(url.password == "given")
        let (environment, _) = try resolve("postgres://bob@db.example.org/books", ["PGPASSWORD": "env"])
        #expect(environment.password == "env")

        // PGPASSFILE names another file.
        let other = home.path + "/other.pgpass"
        try "*:*:*:*:elsewhere\n".write(toFile: other, atomically: true, encoding: .utf8)
        chmod(other, 0o600)
        let (named, _) = try resolve("postgres://zed@h/db", ["PGPASSFILE": other])
        #expect(named.password == "elsewhere")

        // A file others can read is ignored, with a warning.
        chmod(file, 0o644)
        let (open, openWarnings) = try resolve("postgres://bob@db.example.org/books")
        #expect(open.password == nil)
        #expect(openWarnings.count == 1)
        #expect(openWarnings.first?.contains("chmod 600") == true)
    }

    /// libpq finds the user part before the first /, so ? & and spaces need no escape in a
    /// password; and a program argument is masked as one URL to its end.
    @Test func unescapedCharactersInAPasswordAreReadAndMasked() throws {
        let (question, _) = try resolve("postgres://u:pa?ss&w=rd@h/db?sslmode=disable")
        #expect(question.password == "pa?ss&w=rd")
        #expect(question.sslMode == .disable)
        #expect(question.host == "h")
        let (spaced, _) = try resolve("postgres://u:pa ss\"q'uote@h/db")
        #expect(spaced.password == "pa ss\"q'uote")
        #expect(PostgresURLMask.maskedArgument("postgres://u:pa ss\"q'uote@h/db") == "postgres://u:*****@h/db")
        #expect(PostgresURLMask.passwords(inArgument: "postgres://u:p%20w ss@h/db") == ["p%20w ss", "p w ss"])
        #expect(PostgresURLMask.maskedArgument("--table") == "--table")
    }

    @Test func theMaskCoversEveryURLInAText() {
        #expect(PostgresURLMask.masked("cannot open postgres://u:secret@h:5/db now") == "cannot open postgres://u:*****@h:5/db now")
        #expect(PostgresURLMask.masked("\"postgresql://u:a@b@h/db\" and POSTGRES://x:y@z") == "\"postgresql://u:*****@h/db\" and POSTGRES://x:*****@z")
        #expect(PostgresURLMask.masked("postgres://u@h/db?password=secret&sslmode=require") == "postgres://u@h/db?password=*****&sslmode=require")
        #expect(PostgresURLMask.masked("postgres://u:pa/ss@h/db") == "postgres://u:*****@h/db", "an unescaped / in a password is still masked")
        #expect(PostgresURLMask.masked("no url, just postgres:// and a:b@c") == "no url, just postgres:// and a:b@c")
        #expect(PostgresURLMask.masked("postgres://h/db") == "postgres://h/db")
    }

    /// Random users, passwords, hosts and databases (any printable character, escaped as a
    /// person would): the URL reads back to the same parts, and neither the description nor the
    /// masked URL inside running text holds the password.
    @Test func randomURLsReadBackAndNeverShowTheirPassword() throws {
        let seed = Fuzz.seed()
        var random = SeededRandom(seed: seed)
        let alphabet = Array("abcXYZ019 -._~:/@?#&=%+!*'()[]$,;\"\\é漢")
        func text(_ random: inout SeededRandom, _ length: ClosedRange<Int>) -> String {
            let count = length.lowerBound + random.next(below: length.count)
            return String((0..<count).map { _ in alphabet[random.next(below: alphabet.count)] })
        }
        let unreserved = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-._~")).subtracting(CharacterSet(charactersIn: "é漢"))
        for round in 0..<Fuzz.scaled(500) {
            let user = text(&random, 1...8)
            let password = "pw" + text(&random, 4...16)
            let database = text(&random, 1...10)
            let host = ["db.example.org", "127.0.0.1", "::1", "/tmp/sock dir"][random.next(below: 4)]
            let port = 1 + random.next(below: 65535)
            func encoded(_ part: String) -> String { part.addingPercentEncoding(withAllowedCharacters: unreserved)! }
            let hostPart = host.hasPrefix("/") ? encoded(host) : (host.contains(":") ? "[\(host)]" : host)
            let url = "postgres://\(encoded(user)):\(encoded(password))@\(hostPart):\(port)/\(encoded(database))"
            let context = "seed \(seed) round \(round): \(url)"

            let (location, _) = try resolve(url)
            #expect(location.user == user, "\(context)")
            #expect(location.password == password, "\(context)")
            #expect(location.host == host, "\(context)")
            #expect(location.port == port, "\(context)")
            #expect(location.database == database, "\(context)")
            #expect(!location.description.contains(password), "\(context)")
            #expect(!location.description.contains(encoded(password)), "\(context)")
            // The description is itself a URL that reads back to the same place.
            let (again, _) = try resolve(location.description.replacingOccurrences(of: ":*****@", with: ":\(encoded(password))@"))
            #expect(again == location, "\(context)")

            let sentence = "cannot reach \(url) now"
            let masked = PostgresURLMask.masked(sentence)
            #expect(!masked.contains(encoded(password)), "\(context)")
            #expect(masked.hasPrefix("cannot reach postgres://\(encoded(user)):*****@\(hostPart):\(port)/"), "\(context): \(masked)")
            #expect(masked.hasSuffix(" now"), "\(context)")
        }
    }
}
