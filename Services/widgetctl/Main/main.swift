import ArgumentParser
import WidgetctlCommands

WidgetCtl.main()
