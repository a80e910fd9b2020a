-- Run once by the pgvector/pgvector image when its data volume is created.
CREATE EXTENSION IF NOT EXISTS vector;
