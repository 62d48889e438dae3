// swift-tools-version:6.1
import PackageDescription

let package = Package(
    name: "Cardfile",
    products: [
        .library(name: "CardfileStore", targets: ["CardfileStore"]),
        .library(name: "CardfileTerminal", targets: ["CardfileTerminal"]),
        .library(name: "CardfileCurses", targets: ["CardfileCurses"]),
        .library(name: "CardfileApp", targets: ["CardfileApp"]),
        .library(name: "CardfilePostgres", targets: ["CardfilePostgres"]),
        .executable(name: "cardfile", targets: ["cardfile"]),
    ],
    dependencies: [
        .package(url: "https://github.com/groue/GRDB.swift", exact: "7.10.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/LebJe/TOMLKit", from: "0.6.0"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.3"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    ],
    targets: [
        .target(
            name: "CardfileStore",
            dependencies: [
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                "CSQLiteSupport",
            ]
        ),
        .target(name: "CSQLiteSupport", linkerSettings: [.linkedLibrary("sqlite3")]),
        .target(
            name: "CardfilePostgres",
            dependencies: [
                "CardfileStore",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .target(name: "CWidth"),
        .target(
            name: "CardfileTerminal",
            dependencies: ["CWidth", .product(name: "TOMLKit", package: "TOMLKit")]
        ),
        .systemLibrary(
            name: "CNCurses",
            pkgConfig: "ncursesw",
            providers: [.apt(["libncurses-dev"])]
        ),
        .target(
            name: "CCursesSupport",
            dependencies: ["CNCurses"]
        ),
        .target(
            name: "CardfileCurses",
            dependencies: ["CNCurses", "CCursesSupport", "CardfileTerminal"]
        ),
        .target(
            name: "CardfileApp",
            dependencies: ["CardfileStore", "CardfileTerminal", .product(name: "ArgumentParser", package: "swift-argument-parser")]
        ),
        .executableTarget(
            name: "cardfile",
            dependencies: [
                "CardfileApp",
                "CardfilePostgres",
                "CardfileCurses",
                "CardfileStore",
                "CardfileTerminal",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .executableTarget(
            name: "cardfile-termdemo",
            dependencies: ["CardfileCurses", "CardfileTerminal"]
        ),
        .executableTarget(
            name: "cardfile-bench",
            dependencies: [
                "CardfileApp",
                "CardfilePostgres",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                "CardfileStore",
                "CardfileTerminal",
                "CardfileCurses",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .target(name: "CardfileTestSupport", path: "Tests/CardfileTestSupport"),
        .testTarget(
            name: "CardfileStoreTests",
            dependencies: ["CardfileStore", "CardfilePostgres", "CardfileTestSupport"],
            exclude: ["Fixtures"]
        ),
        .testTarget(
            name: "CardfilePostgresTests",
            dependencies: [
                "CardfilePostgres", "CardfileStore", "CardfileTestSupport",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ]
        ),
        .testTarget(
            name: "CardfileTerminalTests",
            dependencies: ["CardfileTerminal", "CardfileTestSupport"]
        ),
        .testTarget(
            name: "CardfileAppTests",
            dependencies: [
                "CardfileApp", "CardfileStore", "CardfilePostgres", "CardfileTerminal", "CardfileTestSupport",
                .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
        .testTarget(
            name: "CardfileCursesTests",
            dependencies: ["CardfileCurses", "CardfileTestSupport", "cardfile-termdemo", "cardfile"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
