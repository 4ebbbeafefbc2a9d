import { Link } from '../../router';
import { useLoad } from '../../use-load';

/**
 * Said on the Overview while the subscription is inactive: checks get no answer until it is active, and where to
 * change that (Billing; the operator when it is they who set subscriptions).
 */
export function InactiveNotice() {
  const { result } = useLoad((a) => a.billing());
  const operator = result?.ok && result.data.mode === 'operator';
  return (
    <p className="notice error" data-testid="overview-inactive">
      The subscription is inactive: the extension and your practice software get no answers until it is active.{' '}
      {operator ? 'Your service’s operator activates the subscription. ' : ''}
      <Link to="billing">{operator ? 'See Billing' : 'Subscribe or see why on the Billing page'}</Link>
    </p>
  );
}
