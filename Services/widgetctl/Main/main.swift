import WidgetctlCommands

WidgetCtl.main()
