DROP TABLE IF EXISTS transfer_account
GO
CREATE TABLE transfer_account (id INT PRIMARY KEY, balance DECIMAL(14,2), gen_commit_us BIGINT)
GO
