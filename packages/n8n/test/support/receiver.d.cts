export interface Delivery {
	method: string;
	url: string;
	headers: Record<string, string>;
	rawBody: string;
}
export interface Receiver {
	url: string;
	deliveries: Delivery[];
	next(timeoutMs?: number): Promise<Delivery>;
	close(): Promise<void>;
}
export function startReceiver(options?: { status?: number }): Promise<Receiver>;
