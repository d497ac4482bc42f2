import { defaultServerConditions } from 'vite';
import { packageTestConfig } from '../../vitest.shared.ts';

// OpenTelemetry's `module` builds import without file extensions, which Node cannot load: resolve as Node does.
const config = packageTestConfig();
export default { ...config, ssr: { resolve: { conditions: ['@pgw/source', ...defaultServerConditions.filter((c) => c !== 'module')] } } };
