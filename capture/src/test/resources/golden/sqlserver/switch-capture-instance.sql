-- cdc-lab: SQL Server change data capture for database [cdclab]
-- run as a member of sysadmin; SQL Server Agent must be running
USE [cdclab];
GO
IF NOT EXISTS (SELECT 1 FROM cdc.change_tables WHERE capture_instance = N'dbo_orders_v2')
    EXEC sys.sp_cdc_enable_table @source_schema = N'dbo', @source_name = N'orders', @role_name = NULL, @capture_instance = N'dbo_orders_v2', @supports_net_changes = 0;
GO
EXEC sys.sp_cdc_disable_table @source_schema = N'dbo', @source_name = N'orders', @capture_instance = N'dbo_orders';
GO
