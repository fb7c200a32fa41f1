DROP TABLE IF EXISTS mix_customer
GO
DROP TABLE IF EXISTS mix_order
GO
DROP TABLE IF EXISTS mix_order_line
GO
DROP TABLE IF EXISTS mix_payment
GO
CREATE TABLE mix_customer (id BIGINT PRIMARY KEY, name NVARCHAR(64), email NVARCHAR(128), balance DECIMAL(12,2), tier INT, gen_commit_us BIGINT)
GO
CREATE TABLE mix_order (id BIGINT PRIMARY KEY, customer_id BIGINT, status NVARCHAR(16), amount DECIMAL(12,2), items INT, created_at DATETIMEOFFSET(6), gen_commit_us BIGINT)
GO
CREATE TABLE mix_order_line (order_id BIGINT, line_no INT, item_id INT, quantity INT, price DECIMAL(10,2), gen_commit_us BIGINT, PRIMARY KEY (order_id, line_no))
GO
CREATE TABLE mix_payment (id BIGINT PRIMARY KEY, order_id BIGINT, method NVARCHAR(16), amount DECIMAL(12,2), reference NVARCHAR(64), paid_at DATETIMEOFFSET(6), gen_commit_us BIGINT)
GO
