import AppGateway
import ArgumentParser

@main
enum AppGatewayMain {
    /// From an async context, so that the command runs as the async command it is.
    static func main() async {
        await AppGatewayCommand.main()
    }
}
