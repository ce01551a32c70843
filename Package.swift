// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "touchgate",
    products: [
        .library(name: "TouchGate", targets: ["TouchGate"]),
        .executable(name: "touchgate", targets: ["touchgate"]),
    ],
    targets: [
        .systemLibrary(name: "CPAM", path: "Sources/CPAM"),
        .systemLibrary(name: "CSQLite", path: "Sources/CSQLite"),
        .executableTarget(name: "embed-migrations", path: "Sources/embed-migrations"),
        .plugin(
            name: "EmbedMigrations",
            capability: .buildTool(),
            dependencies: ["embed-migrations"],
            path: "Plugins/EmbedMigrations"
        ),
        .target(
            name: "TouchGate",
            dependencies: ["CPAM", "CSQLite"],
            path: "Sources/TouchGate",
            plugins: ["EmbedMigrations"]
        ),
        .target(name: "TouchGateCLI", dependencies: ["TouchGate"], path: "Sources/TouchGateCLI"),
        .executableTarget(name: "touchgate", dependencies: ["TouchGateCLI"], path: "Sources/touchgate"),
        .testTarget(name: "TouchGateTests", dependencies: ["TouchGate"], path: "Tests/TouchGateTests"),
        .testTarget(name: "TouchGateCLITests", dependencies: ["TouchGateCLI", "TouchGate"], path: "Tests/TouchGateCLITests"),
    ]
)
