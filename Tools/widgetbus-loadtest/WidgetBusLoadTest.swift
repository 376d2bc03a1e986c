import ArgumentParser

/// The load generator and the end-to-end benchmarks of running WidgetBus services: a tool of its
/// own, kept out of the production image and out of `widgetctl`, which only publishes.
@main
struct WidgetBusLoadTest: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "widgetbus-loadtest",
        abstract: "Load-test a running WidgetBus topology and benchmark its services against raw baselines.",
        discussion: """
            Without a subcommand, `pipeline` runs: widgetbus-loadtest --rate 2000 --duration 30.

            The service benchmarks measure one service each, next to a raw baseline measured in the same \
            run (libzmq round trips, atomic file writes), so that their ratio means something on a noisy \
            machine. scripts/bench-*.sh start the services and run them.

            Exit status: 0 on success, 1 when the run saw errors, timeouts or missing timelines, 64 on a \
            usage error.
            """,
        subcommands: [
            LoadTestCommand.self, IntentHandlerBenchmark.self, SnapshotWriterBenchmark.self, SyncAgentBenchmark.self,
            MetricsIngestBenchmark.self, PushGatewayBenchmark.self, AppGatewayBenchmark.self, FailoverProbe.self,
        ],
        defaultSubcommand: LoadTestCommand.self
    )
}
