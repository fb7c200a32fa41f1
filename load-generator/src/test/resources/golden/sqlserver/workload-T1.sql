DROP TABLE IF EXISTS t1_objects
GO
CREATE TABLE t1_objects (object_id BIGINT PRIMARY KEY, owner NVARCHAR(128), object_name NVARCHAR(128), subobject_name NVARCHAR(128), data_object_id BIGINT, object_type NVARCHAR(23), created DATETIMEOFFSET(6), last_ddl_time DATETIMEOFFSET(6), ts NVARCHAR(19), status NVARCHAR(7), temporary NVARCHAR(1), generated NVARCHAR(1), secondary NVARCHAR(1), gen_commit_us BIGINT)
GO
