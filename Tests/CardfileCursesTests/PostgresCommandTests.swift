import CardfileTestSupport
import Foundation
import Testing

/// `cardfile postgres://…` as a person runs it: what cannot work is said in one line on standard
/// error with status 2, before the terminal is touched, and no password is ever shown.
@Suite("PostgreSQL command line", .timeLimit(.minutes(5)))
struct PostgresCommandTests {
    struct Outcome {
        var status: Int32
        var output: String
        var errors: String
    }

    /// Runs cardfile with no terminal, no PG variables and a home of its own (no ~/.pgpass).
    static func cardfile(_ arguments: [String], environment extra: [String: String] = [:]) throws -> Outcome {
        let home = TemporaryDirectory()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try TmuxSession.programPath("cardfile"))
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("PG") }
        environment["HOME"] = home.path
        environment.merge(extra) { $1 }
        process.environment = environment
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let printed = output.fileHandleForReading.readDataToEndOfFile()
        let complained = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Outcome(status: process.terminationStatus, output: String(decoding: printed, as: UTF8.self),
                       errors: String(decoding: complained, as: UTF8.self))
    }

    /// Runs `program arguments… | head -c 1` in a shell: the report's reader goes away after
    /// one byte. The outcome is cardfile's (its status, its standard error).
    static func cardfile(_ arguments: [String], through program: String) throws -> Outcome {
        let quoted = ([program] + arguments).map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }.joined(separator: " ")
        let outcome = try cardfile([], shell: "\(quoted) 2>\"$ERRORS\" | head -c 1 >/dev/null; exit ${PIPESTATUS[0]}")
        return outcome
    }

    /// Runs `script` in bash, with `ERRORS` naming a file for cardfile's standard error.
    private static func cardfile(_ unused: [String], shell script: String) throws -> Outcome {
        let folder = TemporaryDirectory()
        let errors = folder.file("errors")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = ["-c", script]
        var environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("PG") }
        environment["HOME"] = folder.path
        environment["ERRORS"] = errors
        process.environment = environment
        process.standardInput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        let written = (try? String(contentsOfFile: errors, encoding: .utf8)) ?? ""
        return Outcome(status: process.terminationStatus, output: "", errors: written)
    }

    /// One line on standard error, nothing on standard output, status 2, no escape sequence.
    static func expectOneLineFailure(_ outcome: Outcome, containing words: String, notShowing secret: String,
                                     sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(outcome.status == 2, "\(outcome.errors)", sourceLocation: sourceLocation)
        #expect(outcome.output.isEmpty, "\(outcome.output)", sourceLocation: sourceLocation)
        let lines = outcome.errors.split(separator: "\n")
        #expect(lines.count == 1, "\(outcome.errors)", sourceLocation: sourceLocation)
        #expect(outcome.errors.hasPrefix("cardfile: "), "\(outcome.errors)", sourceLocation: sourceLocation)
        #expect(outcome.errors.contains(words), "\(outcome.errors)", sourceLocation: sourceLocation)
        #expect(!outcome.errors.contains(secret), "\(outcome.errors)", sourceLocation: sourceLocation)
        #expect(!outcome.errors.contains("\u{1B}"), "the terminal was touched: \(outcome.errors)", sourceLocation: sourceLocation)
    }

    @Test func eachFailureToOpenIsOneLineAndStatusTwo() throws {
        let server = try PostgresTestServer.current()
        let database = try server.makeDatabase()
        defer { server.drop(database) }
        try server.psql(database, "CREATE TABLE books (id int PRIMARY KEY, title text); CREATE TABLE authors (id int PRIMARY KEY)")

        Self.expectOneLineFailure(
            try Self.cardfile([server.url(database: database, password: "wrong-secret")]),
            containing: "refused the login of \"cardfile\"", notShowing: "wrong-secret")
        Self.expectOneLineFailure(
            try Self.cardfile([server.url(database: "no_such_db")]),
            containing: "has no database \"no_such_db\"", notShowing: server.password)
        Self.expectOneLineFailure(
            try Self.cardfile(["postgres://cardfile:some-secret@127.0.0.1:\(SilentListener.closedPort())/postgres"]),
            containing: "connection refused", notShowing: "some-secret")
        let unknownTable = try Self.cardfile([server.url(database: database), "--table", "nothing"])
        Self.expectOneLineFailure(unknownTable, containing: "no table or view \"nothing\"", notShowing: server.password)
        #expect(unknownTable.errors.contains("(its tables: authors, books)"))
        #expect(unknownTable.errors.contains("postgres://cardfile:*****@127.0.0.1:\(server.port)/\(database)"))
        Self.expectOneLineFailure(
            try Self.cardfile(["postgres://cardfile:hidden-secret@127.0.0.1:notaport/x"]),
            containing: "the port is not a number", notShowing: "hidden-secret")
        // A password with a space and quotes, left unescaped: the command line's parser quotes
        // the argument, and the password is still masked.
        let spaced = try Self.cardfile(["postgres://cardfile:odd pass\"word'here@127.0.0.1/x", "--no-such-option"])
        Self.expectOneLineFailure(spaced, containing: "--no-such-option", notShowing: "odd pass")
        #expect(!spaced.errors.contains("word'here"), "\(spaced.errors)")
        // The password from PGPASSWORD works, and a wrong one names where it came from.
        Self.expectOneLineFailure(
            try Self.cardfile(["postgres://cardfile@127.0.0.1:\(server.port)/\(database)"], environment: ["PGPASSWORD": "env-secret"]),
            containing: "came from PGPASSWORD", notShowing: "env-secret")
        // An option the command line cannot read quotes its arguments masked.
        Self.expectOneLineFailure(
            try Self.cardfile(["postgres://cardfile:parse-secret@127.0.0.1/x", "--no-such-option"]),
            containing: "--no-such-option", notShowing: "parse-secret")
    }

    /// `cardfile import` and `export` on a server as a script runs them: the summary and its
    /// refused lines on standard output, statuses as on SQLite, the round trip exact, and what
    /// cannot work said in one line, password masked.
    @Test func importAndExportOnAServer() throws {
        let server = try PostgresTestServer.current()
        let database = try server.makeDatabase()
        defer { server.drop(database) }
        try server.psql(database, "CREATE TABLE books (id int PRIMARY KEY, title text NOT NULL, price numeric, tags jsonb); CREATE TABLE again (LIKE books INCLUDING ALL)")
        let folder = TemporaryDirectory()
        let file = folder.file("books.csv")
        try "id,title,price,tags\n1,\"Dune\\tab\t\"\"x\"\"\",12.345678901234567890123,\"{\"\"a\"\": [1, 2]}\"\n2,,1,\n3,Emma,cheap,\n4,\"\",,\n"
            .write(toFile: file, atomically: true, encoding: .utf8)
        let url = server.url(database: database)
        let imported = try Self.cardfile(["import", url, file, "--table", "books"])
        #expect(imported.status == 0, "\(imported.errors)")
        #expect(imported.output.contains("imported 2 rows: 2 inserted, 2 rejected"), "\(imported.output)")
        #expect(imported.output.contains("books.csv line 3, column title: needs a value"), "\(imported.output)")
        #expect(imported.output.contains("books.csv line 4, column price: invalid input syntax for type numeric: \"cheap\""), "\(imported.output)")
        #expect(try server.psql(database, "SELECT price FROM books WHERE id = 1") == "12.345678901234567890123")

        let out = folder.file("out.csv")
        let exported = try Self.cardfile(["export", url, "--table", "books", "--output", out])
        #expect(exported.status == 0, "\(exported.errors)")
        #expect(exported.errors.contains("Exported 2 rows"))
        let back = try Self.cardfile(["import", url, out, "--table", "again", "--atomic"])
        #expect(back.output.contains("imported 2 rows: 2 inserted"), "\(back.output)")
        #expect(try server.psql(database, "SELECT count(*) FROM (SELECT * FROM books EXCEPT SELECT * FROM again) AS d") == "0")
        #expect(try server.psql(database, "SELECT count(*) FROM again WHERE title = '' AND price IS NULL") == "1", "the empty string stays one, NULL stays NULL")

        // A reader that goes away before the report ends it quietly (status 141), never a crash.
        let program = try TmuxSession.programPath("cardfile")
        let piped = try Self.cardfile(["import", url, file, "--table", "books", "--mode", "ignore"], through: program)
        #expect(piped.status == 141 || piped.status == 0, "\(piped.errors)")
        #expect(!piped.errors.contains("rash") && !piped.errors.contains("Fatal"), "\(piped.errors)")
        try server.psql(database, "CREATE TABLE many AS SELECT n AS id, repeat('x', 200) AS pad FROM generate_series(1, 100000) AS n")
        let exportPiped = try Self.cardfile(["export", url, "--table", "many"], through: program)
        #expect(exportPiped.status == 141, "\(exportPiped.status) \(exportPiped.errors)")
        #expect(exportPiped.errors.isEmpty, "a reader gone is no error: \(exportPiped.errors)")
        Self.expectOneLineFailure(try Self.cardfile(["export", url, "--table", "books", "--null", "a,b"]),
                                  containing: "--null cannot hold", notShowing: server.password)

        let again = try Self.cardfile(["import", url, out, "--table", "again", "--atomic"])
        #expect(again.status == 1)
        #expect(again.output.contains("nothing imported"), "\(again.output)")
        Self.expectOneLineFailure(try Self.cardfile(["import", url, file, "--table", "missing"]),
                                  containing: "no table or view \"missing\"", notShowing: server.password)
        // --create makes the table (typed from the file, keyed) in the first schema of the path.
        let created = try Self.cardfile(["import", url, file, "--table", "fresh", "--create"])
        #expect(created.status == 0, "\(created.errors)")
        #expect(created.errors.contains("Created table fresh (") && created.errors.contains("bigint"), "\(created.errors)")
        #expect(try server.psql(database, "SELECT count(*) > 0 FROM public.fresh") == "t")
    }

    /// `--table schema.name`, as the URL form has it: a schema of the search path is
    /// the table's name alone, one outside it is opened all the same (listed as
    /// `schema.name`), for the editor, import and export; and its changes come live.
    @Test func aTableNamedWithItsSchemaInOrOutOfTheSearchPath() throws {
        let server = try PostgresTestServer.current()
        let database = try server.makeDatabase()
        defer { server.drop(database) }
        try server.psql(database, """
            CREATE TABLE books (id int PRIMARY KEY, title text);
            CREATE SCHEMA archive; CREATE TABLE archive.books (id int PRIMARY KEY, title text);
            INSERT INTO archive.books VALUES (1, 'Old');
            """)
        let url = server.url(database: database)
        let folder = TemporaryDirectory()
        let file = folder.file("books.csv")
        try "id,title\n2,Two\n".write(toFile: file, atomically: true, encoding: .utf8)
        for table in ["public.books", "archive.books"] {
            let imported = try Self.cardfile(["import", url, file, "--table", table])
            #expect(imported.status == 0 && imported.output.contains("1 inserted"), "\(table): \(imported.output) \(imported.errors)")
        }
        #expect(try server.psql(database, "SELECT string_agg(title, ',' ORDER BY id) FROM public.books") == "Two")
        #expect(try server.psql(database, "SELECT string_agg(title, ',' ORDER BY id) FROM archive.books") == "Old,Two")
        // Names that must be quoted: capitals, a space, a dot.
        try server.psql(database, """
            CREATE SCHEMA "Odd s"; CREATE TABLE "Odd s"."We.ird" (id int PRIMARY KEY, title text);
            INSERT INTO "Odd s"."We.ird" VALUES (1, 'quoted');
            """)
        let odd = try Self.cardfile(["export", url, "--table", "\"Odd s\".\"We.ird\""])
        #expect(odd.status == 0 && odd.output.contains("\"quoted\""), "\(odd.output) \(odd.errors)")
        let oddImport = try Self.cardfile(["import", url, file, "--table", "\"Odd s\".\"We.ird\""])
        #expect(oddImport.status == 0 && oddImport.output.contains("1 inserted"), "\(oddImport.output) \(oddImport.errors)")
        Self.expectOneLineFailure(try Self.cardfile(["export", url, "--table", "other_db.archive.books"]),
                                  containing: "no table or view", notShowing: server.password)
        // Names read as psql reads them, whatever else is named alike: a schema in capitals,
        // a table of public whose name has a dot, a table of pg_catalog.
        try server.psql(database, """
            CREATE SCHEMA "Archive"; CREATE TABLE "Archive"."Books" (id int PRIMARY KEY, title text);
            INSERT INTO "Archive"."Books" VALUES (1, 'capitals');
            CREATE TABLE public."archive.books" (id int PRIMARY KEY, title text); INSERT INTO public."archive.books" VALUES (1, 'dotted');
            """)
        let capitals = try Self.cardfile(["export", url, "--table", "\"Archive\".\"Books\""])
        #expect(capitals.output.contains("capitals") && !capitals.output.contains("Old"), "\(capitals.output) \(capitals.errors)")
        let plain = try Self.cardfile(["export", url, "--table", "archive.books"])
        #expect(plain.output.contains("Old") && !plain.output.contains("dotted"), "\(plain.output) \(plain.errors)")
        let dotted = try Self.cardfile(["export", url, "--table", "\"archive.books\""])
        #expect(dotted.output.contains("dotted"), "\(dotted.output) \(dotted.errors)")
        // --create with such names: a table that is there is imported into, not made again; a
        // new one is made where psql would read the name to be.
        let more = folder.file("more.csv")
        try "id,title\n9,Nine\n".write(toFile: more, atomically: true, encoding: .utf8)
        let into = try Self.cardfile(["import", url, more, "--table", "public.books", "--create"])
        #expect(into.status == 0 && !into.errors.contains("Created"), "\(into.output) \(into.errors)")
        for (name, made) in [("Archive.New", "archive.new"), ("\"Archive\".\"New\"", "\"Archive\".\"New\"")] {
            let created = try Self.cardfile(["import", url, file, "--table", name, "--create"])
            #expect(created.status == 0 && created.errors.contains("Created table"), "\(name): \(created.output) \(created.errors)")
            #expect(try server.psql(database, "SELECT count(*) FROM \(made)") == "1", "\(name)")
        }
        let catalog = try Self.cardfile(["export", url, "--table", "pg_catalog.pg_namespace"])
        #expect(catalog.status == 0 && catalog.output.contains("pg_catalog"), "\(catalog.errors)")
        let exported = try Self.cardfile(["export", url, "--table", "archive.books"])
        #expect(exported.status == 0 && exported.output.contains("\"Old\"") && exported.output.contains("\"Two\""), "\(exported.output) \(exported.errors)")
        Self.expectOneLineFailure(try Self.cardfile(["export", url, "--table", "archive.missing"]),
                                  containing: "archive.missing", notShowing: server.password)

        #expect(try Self.cardfile(["pg-setup", url, "--table", "archive.books"]).status == 0)
        let editor = try TmuxSession(terminal: "xterm-256color", width: 100, height: 16, program: "cardfile",
                                     arguments: [url, "--table", "archive.books", "--autosave", "off"], tag: database)
        defer { editor.close() }
        try editor.waitFor { $0.contains("archive.books") && $0.contains("row 1 of 2") && $0.contains("live: notify") }
        try server.psql(database, "INSERT INTO archive.books VALUES (3, 'Third')")
        try editor.waitFor { $0.contains("Third") }
        try editor.send(keys: ["Enter"])
        try editor.send(literal: " Edition")
        try editor.send(keys: ["C-s"])
        try editor.waitFor { $0.contains("Saved.") }
        #expect(try server.psql(database, "SELECT title FROM archive.books WHERE id = 1") == "Old Edition")
    }

    /// Two editors on one PostgreSQL table, in real terminals, with psql as a third writer:
    /// one editor's save shows in the other's list, a same-field edit opens the dialog, and
    /// what psql commits shows too (the triggers of `cardfile pg-setup` announce every commit).
    @Test func twoEditorsAndPsqlOnOneTable() throws {
        let server = try PostgresTestServer.current()
        let database = try server.makeDatabase()
        defer { server.drop(database) }
        try server.psql(database, """
            CREATE TABLE books (id int PRIMARY KEY, title text NOT NULL, year int);
            INSERT INTO books VALUES (1, 'Dune', 1965), (2, 'Emma', 1815), (3, 'Ulysses', 1922);
            """)
        let url = server.url(database: database)
        let setup = try Self.cardfile(["pg-setup", url, "--table", "books"])
        #expect(setup.status == 0, "\(setup.errors)")
        let first = try TmuxSession(terminal: "xterm-256color", width: 100, height: 16, program: "cardfile",
                                    arguments: [url, "--table", "books", "--autosave", "off"], tag: database)
        defer { first.close() }
        let second = try TmuxSession(terminal: "xterm-256color", width: 100, height: 16, program: "cardfile",
                                     arguments: [url, "--table", "books", "--autosave", "off"], tag: database)
        defer { second.close() }
        for session in [first, second] {
            let screen = try session.waitFor { $0.contains("row 1 of 3") && $0.contains("live: notify") }
            #expect(!screen.contains(server.password), "no password on screen")
        }

        // The first editor saves a title; the second's list shows it.
        try first.send(keys: ["Enter"])
        try first.waitFor { $0.contains("books › 1") }
        try first.send(keys: ["C-u"])
        try first.send(literal: "Dune Messiah")
        try first.send(keys: ["C-s"])
        try first.waitFor { $0.contains("Saved.") }
        #expect(try server.psql(database, "SELECT title FROM books WHERE id = 1") == "Dune Messiah")
        try second.waitFor { $0.contains("Dune Messiah") }

        // Both edit the same title: the second to save meets the dialog, and nothing is lost.
        try second.send(keys: ["Enter"])
        try second.waitFor { $0.contains("books › 1") }
        try second.send(keys: ["C-u"])
        try second.send(literal: "Children of Dune")
        try first.send(keys: ["C-u"])
        try first.send(literal: "God Emperor")
        try first.send(keys: ["C-s"])
        // (The first's "Saved." from its earlier save may still be on its screen: its commit
        // is waited for on the server, so the second is the one to save second.)
        let deadline = Date().addingTimeInterval(20)
        while try server.psql(database, "SELECT title FROM books WHERE id = 1") != "God Emperor", Date() < deadline {
            Thread.sleep(forTimeInterval: 0.05)
        }
        try second.send(keys: ["C-s"])
        let dialog = try second.waitFor { $0.contains("Changed elsewhere") }
        #expect(dialog.contains("God Emperor") && dialog.contains("Children of Dune"), "\(dialog)")
        #expect(try server.psql(database, "SELECT title FROM books WHERE id = 1") == "God Emperor")

        // psql as a third writer: both lists show its commit.
        try second.send(keys: ["Escape"])
        try first.send(keys: ["Escape"])
        try server.psql(database, "UPDATE books SET title = 'Persuasion' WHERE id = 2")
        try first.waitFor { $0.contains("Persuasion") }
    }

    /// The server is killed (`kill -9`) while a form holds an edit: the status bar says so,
    /// nothing freezes, leaving the form asks rather than drop the edit, and once the server is
    /// started again the edit is saved by itself and the list shows what the server holds.
    @Test func theServerKilledMidEditThenStartedAgainGetsTheEdit() throws {
        let owned = try PrivatePostgresServer(settings: ["autovacuum=off"])
        defer { owned.stop() }
        try owned.server.psql("postgres", """
            CREATE TABLE books (id int PRIMARY KEY, title text NOT NULL, year int);
            INSERT INTO books VALUES (1, 'Dune', 1965), (2, 'Emma', 1815);
            """)
        let session = try TmuxSession(terminal: "xterm-256color", width: 100, height: 16, program: "cardfile",
                                      arguments: [owned.server.url, "--table", "books", "--autosave", "1"], tag: "loss\(owned.server.port)")
        defer { session.close() }
        // No triggers: the list polls, and says so.
        try session.waitFor { $0.contains("row 1 of 2") && $0.contains("live: polling") }
        try session.send(keys: ["Enter"])
        try session.waitFor { $0.contains("books › 1") }
        try owned.kill()
        try session.send(keys: ["C-u"])
        try session.send(literal: "Dune Messiah")
        // (The edit stays on screen, marked changed.)
        try session.waitFor { $0.contains("server unreachable: retrying") && $0.contains("title ● Dune Messiah") }
        // Leaving cannot save: it asks, and Cancel keeps the form and the edit.
        try session.send(keys: ["Escape"])
        try session.waitFor { $0.contains("Unsaved changes") && $0.contains("cannot be reached") }
        try session.send(literal: "c")
        try session.waitFor { !$0.contains("Unsaved changes") && $0.contains("Dune Messiah") }

        try owned.start()
        try session.waitFor { $0.contains("saved ") && !$0.contains("server unreachable") }
        #expect(try owned.server.psql("postgres", "SELECT title FROM books WHERE id = 1") == "Dune Messiah")
        // What another client committed meanwhile shows in the list too.
        try owned.server.psql("postgres", "UPDATE books SET title = 'Persuasion' WHERE id = 2")
        try session.send(keys: ["Escape"])
        try session.waitFor { $0.contains("Persuasion") && $0.contains("Dune Messiah") && $0.contains("live: polling") }
    }

    /// `ps` shows every user the arguments of every process: the password is masked there from
    /// the program's first moment (here while it waits on a server that never answers).
    @Test func theProcessTitleNeverShowsThePassword() throws {
        let listener = try SilentListener()
        defer { listener.close() }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try TmuxSession.programPath("cardfile"))
        process.arguments = ["postgres://cardfile:title-secret-123@127.0.0.1:\(listener.port)/db?connect_timeout=20", "--table", "t"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        defer {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        // Wait until it is connecting (the listener's queue holds its connection).
        var commandLine = ""
        let deadline = Date().addingTimeInterval(15)
        while Date() < deadline {
            let data = FileManager.default.contents(atPath: "/proc/\(process.processIdentifier)/cmdline") ?? Data()
            commandLine = String(decoding: data, as: UTF8.self).replacingOccurrences(of: "\0", with: " ")
            if commandLine.contains("*****") { break }
            Thread.sleep(forTimeInterval: 0.01)
        }
        #expect(process.isRunning)
        #expect(!commandLine.contains("title-secret-123"), "\(commandLine)")
        #expect(commandLine.contains("postgres://cardfile:*****@127.0.0.1:\(listener.port)/db?connect_timeout=20"), "\(commandLine)")
        #expect(commandLine.contains("--table t"), "the other arguments stay where they were: \(commandLine)")
    }

    @Test func pgSetupInstallsAgainHarmlesslyStatesItsRightsAndRemoves() throws {
        let server = try PostgresTestServer.current()
        let database = try server.makeDatabase()
        let role = "guest_\(database.suffix(8))"
        defer {
            server.drop(database)
            _ = try? server.psql("postgres", "DROP ROLE IF EXISTS \(role)")
            _ = try? server.psql("postgres", "DROP ROLE IF EXISTS \(role)_owner")
        }
        try server.psql(database, """
            CREATE TABLE books (id int PRIMARY KEY, title text);
            CREATE TABLE keyless (a int);
            CREATE VIEW titles AS SELECT title FROM books;
            CREATE ROLE \(role) LOGIN PASSWORD 'guestpw';
            GRANT SELECT ON books, keyless TO \(role);
            CREATE ROLE \(role)_owner LOGIN PASSWORD 'ownerpw';
            CREATE TABLE owned (id int PRIMARY KEY);
            ALTER TABLE owned OWNER TO \(role)_owner;
            """)
        let url = server.url(database: database)
        for _ in 0..<2 {
            let setup = try Self.cardfile(["pg-setup", url])
            #expect(setup.status == 0, "\(setup.errors)")
            #expect(setup.output.contains("books: announces its changes"), "\(setup.output)")
            #expect(setup.output.contains("keyless: left alone, no primary key"), "\(setup.output)")
            #expect(setup.output.contains("titles: left alone, a view"), "\(setup.output)")
            #expect(setup.output.contains("2 of 4 tables and views announce their changes on the channel cardfile_changes"), "\(setup.output)")
        }
        #expect(try server.psql(database, "SELECT count(*) FROM pg_trigger WHERE tgname LIKE 'cardfile_notify_%'") == "8")

        // A role that owns its table but may not create schemas sets it up once the schema is
        // there, and again (the function is not made anew).
        try server.psql(database, "DROP TRIGGER cardfile_notify_insert ON owned")
        for _ in 0..<2 {
            let owner = try Self.cardfile(["pg-setup", "postgres://\(role)_owner:ownerpw@127.0.0.1:\(server.port)/\(database)", "--table", "owned"])
            #expect(owner.status == 0, "\(owner.output) \(owner.errors)")
            #expect(owner.output.contains("owned: announces its changes"), "\(owner.output)")
        }

        Self.expectOneLineFailure(try Self.cardfile(["pg-setup", url, "--table", "nothing"]), containing: "no table or view \"nothing\"", notShowing: server.password)
        Self.expectOneLineFailure(try Self.cardfile(["pg-setup", "/tmp/file.sqlite"]), containing: "takes a postgres:// URL", notShowing: server.password)

        // Someone who does not own the table is told what it takes.
        let guest = try Self.cardfile(["pg-setup", "postgres://\(role):guestpw@127.0.0.1:\(server.port)/\(database)", "--table", "books"])
        #expect(guest.status == 1)
        #expect(guest.output.contains("books: not done: the PostgreSQL server refused: must be owner of relation books"), "\(guest.output)")
        #expect(guest.errors.contains("then to own each table"), "\(guest.errors)")
        #expect(!(guest.output + guest.errors).contains("guestpw"))

        let removed = try Self.cardfile(["pg-setup", url, "--remove"])
        #expect(removed.status == 0, "\(removed.errors)")
        #expect(removed.output.contains("Removed the triggers, the history journal and the schema cardfile."), "\(removed.output)")
        #expect(try server.psql(database, "SELECT count(*) FROM pg_trigger WHERE tgname LIKE 'cardfile_notify_%'") == "0")
        #expect(try server.psql(database, "SELECT count(*) FROM pg_namespace WHERE nspname = 'cardfile'") == "0")
    }
}
