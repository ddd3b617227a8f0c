// For jest.config.js `setupFilesAfterEnv`: every suite fails a test that prints an API key or signing secret.
import { installSecretGuard } from './secret-guard';

installSecretGuard();
