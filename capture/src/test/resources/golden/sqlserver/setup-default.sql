-- cdc-lab: SQL Server change data capture for database [cdclab]
-- run as a member of sysadmin; SQL Server Agent must be running
USE [cdclab];
GO
IF NOT EXISTS (SELECT 1 FROM sys.databases WHERE name = DB_NAME() AND is_cdc_enabled = 1)
    EXEC sys.sp_cdc_enable_db;
GO
IF SCHEMA_ID(N'cdc_lab') IS NULL
    EXEC (N'CREATE SCHEMA [cdc_lab]');
GO
IF OBJECT_ID(N'[cdc_lab].[heartbeat]', N'U') IS NULL
    CREATE TABLE [cdc_lab].[heartbeat] (id INT NOT NULL PRIMARY KEY, ts DATETIME2(3) NOT NULL);
GO
DELETE FROM [cdc_lab].[heartbeat];
INSERT INTO [cdc_lab].[heartbeat] (id, ts) VALUES (1, SYSUTCDATETIME()), (3, SYSUTCDATETIME()), (2, SYSUTCDATETIME());
GO
IF NOT EXISTS (SELECT 1 FROM cdc.change_tables WHERE source_object_id = OBJECT_ID(N'[cdc_lab].[heartbeat]'))
    EXEC sys.sp_cdc_enable_table @source_schema = N'cdc_lab', @source_name = N'heartbeat', @role_name = NULL, @supports_net_changes = 0;
GO
IF NOT EXISTS (SELECT 1 FROM cdc.change_tables WHERE source_object_id = OBJECT_ID(N'[dbo].[w1_wide]'))
    EXEC sys.sp_cdc_enable_table @source_schema = N'dbo', @source_name = N'w1_wide', @role_name = NULL, @supports_net_changes = 0;
GO
IF NOT EXISTS (SELECT 1 FROM cdc.change_tables WHERE source_object_id = OBJECT_ID(N'[dbo].[mix_order]'))
    EXEC sys.sp_cdc_enable_table @source_schema = N'dbo', @source_name = N'mix_order', @role_name = NULL, @supports_net_changes = 0;
GO
EXEC sys.sp_cdc_change_job @job_type = N'capture', @maxtrans = 500, @maxscans = 10, @continuous = 1, @pollinginterval = 5;
GO
EXEC sys.sp_cdc_change_job @job_type = N'cleanup', @retention = 4320, @threshold = 5000;
GO
BEGIN TRY
    EXEC sys.sp_cdc_stop_job @job_type = N'capture';
END TRY
BEGIN CATCH
    PRINT ERROR_MESSAGE();
END CATCH;
GO
EXEC sys.sp_cdc_start_job @job_type = N'capture';
GO
