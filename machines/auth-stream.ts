/** The bus stream credential changes (revocations, expiries, logouts) travel on to every process. */
export const AUTH_STREAM = 'auth';
