import CardfilePostgres
import CardfileStore
import Foundation

/// `cardfile postgres://…`: everything that can fail is checked here, before the terminal is
/// touched (the URL, the server, the login, the database, the table), each failure one line on
/// standard error and status 2.
enum PostgresOpen {
    /// The location `url` names, completed from this process's environment and password file.
    static func location(_ url: String) throws -> PostgresLocation {
        let environment = ProcessInfo.processInfo.environment
        do {
            let (location, warnings) = try PostgresLocation.resolve(
                url, environment: environment, homeFolder: homeFolder(environment), loginName: loginName(environment))
            for warning in warnings { Output.warn("cardfile: \(warning)") }
            return location
        } catch {
            throw fail(error.message)
        }
    }

    /// Connects to `url` and finds `table` (when given); throws the one-line failure.
    static func check(_ url: String, table: String?) throws -> (PostgresSession, [PostgresRelation]) {
        let (session, relations, _) = try find(url, table: table)
        return (session, relations)
    }

    /// ``check(_:table:)``, with the relation `table` names (nil without a table, or when
    /// there is none and `missingIsFine`).
    private static func find(_ url: String, table: String?, missingIsFine: Bool = false) throws -> (PostgresSession, [PostgresRelation], PostgresRelation?) {
        let location = try location(url)
        let session: PostgresSession
        do {
            session = try PostgresSession.open(location)
        } catch {
            throw fail(error.message)
        }
        do throws(PostgresProblem) {
            let catalog = PostgresCatalog(session: session)
            let relations = try catalog.relations()
            guard let table else { return (session, relations, nil) }
            guard let relation = try catalog.relation(named: table) else {
                if missingIsFine { return (session, relations, nil) }
                throw PostgresProblem.unknownTable(database: location.description, table: table, known: relations.map(\.displayName))
            }
            return (session, relations, relation)
        } catch {
            session.close()
            throw fail(error.message)
        }
    }

    /// A container on the database `url` names, after ``check(_:table:)``; the location as
    /// messages may show it (password masked); and `table` as the container names it: a
    /// `schema.name` the search path reaches is its name alone, one it does not reach is
    /// listed by the container too, as `schema.name`. `history` asks for the server's journal
    /// (kept when `cardfile pg-setup` installed it).
    static func container(_ url: String, table: String?, missingIsFine: Bool = false, readOnly: Bool,
                          history: HistorySettings? = nil) throws -> (Container, String, table: String?) {
        let (session, relations, relation) = try find(url, table: table, missingIsFine: missingIsFine)
        // (A relation the tables screen does not list: another schema's, or pg_catalog's.)
        let listed = Set(relations.map(\.oid))
        let location = session.location
        session.close()
        do {
            // (By its quoted name: `schema.name` as shown is not read back as the same name when
            // either part has capitals, spaces or dots.)
            let engine = try PostgresEngine(location, including: relation.map { listed.contains($0.oid) ? [] : [$0.quotedName] } ?? [])
            let container = try Container(engine: engine, options: StoreOptions(readOnly: readOnly, history: history))
            return (container, location.description, relation?.displayName)
        } catch let error as PostgresProblem {
            throw fail(error.message)
        } catch {
            throw fail(String(describing: error))
        }
    }

    /// The table `import --create` makes for `name`, quoted: a plain name as written, in the
    /// first schema of the search path (passing over Cardfile's own `cardfile` schema, which
    /// a user named `cardfile` has first as `$user`, unless it is the only one); a name with a
    /// dot or a quote as psql reads it (`Archive.New` is `archive.new`). Each part holds at
    /// most 63 bytes.
    static func creationTarget(_ url: String, _ name: String) throws -> String {
        let (session, _) = try check(url, table: nil)
        defer { session.close() }
        var parts = [name]
        if name.contains(".") || name.contains("\"") {
            do {
                parts = try session.rows("SELECT unnest(parse_ident(\(name)))").map { try $0.decode(String.self) }
            } catch {
                throw fail("\"\(name)\" is not a table name PostgreSQL can read (schema.table, with double quotes around a part that needs them)")
            }
            guard (1...2).contains(parts.count) else { throw fail("\"\(name)\" names no table of this database: use table or schema.table") }
        }
        if parts.contains(where: { $0.utf8.count > 63 }) {
            throw fail("a PostgreSQL name holds at most 63 bytes: \"\(name)\" is longer (PostgreSQL would cut it, and the import would not find it)")
        }
        if parts.count == 1 {
            let schema: String?
            do {
                schema = try PostgresCatalog(session: session).schemaForNewTables()
            } catch {
                throw fail("the schema for the new table could not be read: \(error.message)")
            }
            if let schema { parts.insert(schema, at: 0) }
        }
        return parts.map(\.quotedIdentifier).joined(separator: ".")
    }

    /// libpq's home folder: `HOME`, else the password database's entry for this user.
    private static func homeFolder(_ environment: [String: String]) -> String {
        if let home = environment["HOME"], !home.isEmpty { return home }
        guard let entry = getpwuid(geteuid()), let folder = entry.pointee.pw_dir else { return "/" }
        return String(cString: folder)
    }

    /// libpq's default user: the name this process runs as.
    private static func loginName(_ environment: [String: String]) -> String {
        if let entry = getpwuid(geteuid()), let name = entry.pointee.pw_name { return String(cString: name) }
        return environment["USER"] ?? "postgres"
    }
}
