export const API_KEY = "test-service-key-123";
