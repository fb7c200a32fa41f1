DROP TABLE IF EXISTS hot_counter
GO
CREATE TABLE hot_counter (id INT PRIMARY KEY, hits BIGINT, last_value DECIMAL(12,2), label NVARCHAR(32), gen_commit_us BIGINT)
GO
